// The selected part's model properties (GET /scene/properties): what the model file says about it,
// read-only for every role and a link's guest. One native disclosure per group (IFC open, the others
// folded; without an IFC group the first is open), rows of name, value and unit. A group opened or
// closed stays so from part to part.
import { useEffect, useState } from 'preact/hooks'
import { client, type PropertyUnits, type SceneProperties } from '../api/index.ts'
import { Notice } from '../ui/notice.tsx'
import { describeError } from '../util.ts'
import { exactValue, orderedGroups, type PropertyGroups, shownValue } from './property-values.ts'

type Read =
  | { status: 'loading'; node: string }
  | { status: 'ready'; node: string; groups: PropertyGroups; units: PropertyUnits }
  | { status: 'failed'; node: string; message: string }

/** The node's properties, read again when the node changes (an older answer is dropped). */
function useNodeProperties(file: string, node: string, onRead: (p: SceneProperties) => void): Read {
  const [read, setRead] = useState<Read>({ status: 'loading', node })
  useEffect(() => {
    let current = true
    setRead({ status: 'loading', node })
    client.scene
      .properties(file, [node])
      .then((answer) => {
        if (!current) return
        setRead({ status: 'ready', node, groups: answer.nodeIdToProperties[node] ?? {}, units: answer.units })
        onRead(answer)
      })
      .catch((e: unknown) => current && setRead({ status: 'failed', node, message: describeError(e) }))
    return () => {
      current = false
    }
  }, [file, node])
  return read.node === node ? read : { status: 'loading', node }
}

function PropertyGroup(props: {
  name: string
  values: PropertyGroups[string]
  units: Record<string, string> | undefined
  open: boolean
  onToggle: (open: boolean) => void
}) {
  const rows = Object.entries(props.values)
  return (
    <details
      class="property-group"
      data-group={props.name}
      open={props.open}
      onToggle={(e) => props.onToggle(e.currentTarget.open)}
    >
      <summary>
        {props.name} <span class="meta">({rows.length.toLocaleString('en')})</span>
      </summary>
      <table>
        <tbody>
          {rows.map(([name, value]) => {
            const unit = props.units?.[name]
            return (
              <tr key={name} data-property={name}>
                <th scope="row">{name}</th>
                <td>
                  <span class="value" title={exactValue(value)}>
                    {shownValue(value)}
                  </span>
                  {unit && <span class="unit"> {unit}</span>}
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </details>
  )
}

export function ModelProperties(props: {
  file: string
  nodeId: string
  /** Each answer read: the search learns the names it holds. */
  onRead: (properties: SceneProperties) => void
}) {
  const read = useNodeProperties(props.file, props.nodeId, props.onRead)
  // The groups the user opened or closed (by name); the others follow the defaults.
  const [chosen, setChosen] = useState<ReadonlyMap<string, boolean>>(() => new Map())
  const groups = read.status === 'ready' ? orderedGroups(read.groups) : []
  const hasIfc = groups.some(([g]) => g === 'IFC')
  const openByDefault = (group: string, index: number) => group === 'IFC' || (!hasIfc && index === 0)
  return (
    <section class="properties" aria-label="Model properties" aria-busy={read.status === 'loading'}>
      <h3>Model properties</h3>
      {read.status === 'loading' && (
        <p class="hint" role="status">
          Reading the model's properties…
        </p>
      )}
      {read.status === 'failed' && <Notice kind="error" message={read.message} />}
      {read.status === 'ready' && groups.length === 0 && (
        <p class="hint">The model file says nothing about this part.</p>
      )}
      {groups.map(([group, values], index) => (
        <PropertyGroup
          key={group}
          name={group}
          values={values}
          units={read.status === 'ready' ? read.units[group] : undefined}
          open={chosen.get(group) ?? openByDefault(group, index)}
          onToggle={(open) =>
            open !== (chosen.get(group) ?? openByDefault(group, index)) &&
            setChosen((c) => new Map(c).set(group, open))
          }
        />
      ))}
    </section>
  )
}

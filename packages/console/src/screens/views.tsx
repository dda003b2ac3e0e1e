// Saved views (configurations): the camera (position + target in `cameraPosition`), the hidden
// nodes (a `{type: "hidden", nodes}` entry in `modifiers`) and the selection (`selectedNodes`).
// Saving needs the file's saveViews capability, deleting also the view's writePermissions
// (access.ts); a deletion waits a few seconds for an Undo before it is sent (undo.tsx).
import { useState } from 'preact/hooks'
import { type Configuration, type ConfigurationFields, client } from '../api/index.ts'
import { Notice } from '../ui/notice.tsx'
import { type Act, useAction } from '../ui/use-action.ts'
import { formatDate } from '../util.ts'
import type { CameraState, Vec3 } from '../viewer/engine.ts'
import { type FileAccess, viewWritable } from './access.ts'
import { type Deletion, useDeferredDelete } from './undo.tsx'

export interface ViewState {
  camera: CameraState
  hidden: string[]
  selected: string | null
}

function toConfiguration(state: ViewState): Partial<ConfigurationFields> {
  return {
    cameraPosition: [...state.camera.position, ...state.camera.target],
    modifiers: [{ type: 'hidden', nodes: state.hidden }],
    selectedNodes: state.selected ? [state.selected] : [],
  }
}

function fromConfiguration(c: Configuration): ViewState | null {
  const p = c.cameraPosition
  if (!Array.isArray(p) || p.length < 6) return null
  const modifiers = Array.isArray(c.modifiers) ? (c.modifiers as { type?: string; nodes?: unknown }[]) : []
  const hidden = modifiers.find((m) => m?.type === 'hidden')?.nodes
  return {
    camera: { position: p.slice(0, 3) as Vec3, target: p.slice(3, 6) as Vec3 },
    hidden: Array.isArray(hidden) ? hidden.filter((n): n is string => typeof n === 'string') : [],
    selected: c.selectedNodes[0] ?? null,
  }
}

/** Deleting a view: sent when its undo notice goes (undo.tsx). */
function deletion(v: Configuration): Deletion {
  return {
    id: v._id,
    text: `View "${v.name}" deleted`,
    send: () => client.scene.deleteConfiguration(v._id),
  }
}

function SaveViewForm(props: { file: string; current: () => ViewState; act: Act }) {
  const [name, setName] = useState('')
  return (
    <form
      class="inline"
      onSubmit={(e) => {
        e.preventDefault()
        const fields = {
          file: props.file,
          name: name.trim() || 'Untitled',
          ...toConfiguration(props.current()),
        }
        void props.act(() => client.scene.saveConfiguration(fields)).then((ok) => ok && setName(''))
      }}
    >
      <input
        aria-label="View name"
        placeholder="View name"
        value={name}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <button type="submit">Save current view</button>
    </form>
  )
}

export function ViewsPanel(props: {
  file: string
  views: Configuration[]
  access: FileAccess
  current: () => ViewState
  onRestore: (state: ViewState) => void
  onChanged: () => void
}) {
  const action = useAction()
  const undo = useDeferredDelete(props.onChanged)
  const shown = props.views.filter((v) => !undo.isHidden(v._id))

  const act: Act = async (work) => {
    const ok = await action.run(work)
    if (ok) props.onChanged()
    return ok
  }

  return (
    <section class="views" aria-label="Saved views">
      {props.access.capabilities.saveViews ? (
        <SaveViewForm file={props.file} current={props.current} act={act} />
      ) : (
        <p class="hint access-reason">{props.access.reason}</p>
      )}
      {undo.notice}
      {shown.length === 0 ? (
        <p class="hint">No saved views.</p>
      ) : (
        <ul class="items">
          {shown.map((v) => {
            const state = fromConfiguration(v)
            return (
              <li key={v._id}>
                <button
                  type="button"
                  class="link"
                  disabled={!state}
                  onClick={() => state && props.onRestore(state)}
                  aria-label={`Restore ${v.name}`}
                >
                  {v.name}
                </button>
                <span class="meta">{formatDate(v.date)}</span>
                {viewWritable(v, props.access) && (
                  <button
                    type="button"
                    class="ghost small"
                    aria-label={`Delete view ${v.name}`}
                    onClick={() => undo.offer(deletion(v))}
                  >
                    Delete
                  </button>
                )}
              </li>
            )
          })}
        </ul>
      )}
      <Notice kind="error" message={action.error} />
    </section>
  )
}

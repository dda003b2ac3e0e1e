// A node's attributes: view, edit, add and remove (POST /scene/attributes merges per attribute; a
// null removes one, which only ✕ sends). Each value has a type beside it (attribute-values.ts):
// text unless the user picks another, so what is shown is what is stored.
import { useEffect, useState } from 'preact/hooks'
import { type Attributes, client } from '../api/index.ts'
import { Notice } from '../ui/notice.tsx'
import { useAction } from '../ui/use-action.ts'
import type { FileAccess } from './access.ts'
import { encode, show, TYPE_LABELS, typeOf, VALUE_TYPES, type ValueType } from './attribute-values.ts'

type Write = (changes: Attributes) => Promise<boolean>

function TypeSelect(props: { label: string; value: ValueType; onChange: (t: ValueType) => void }) {
  return (
    <select
      aria-label={props.label}
      value={props.value}
      onChange={(e) => props.onChange(e.currentTarget.value as ValueType)}
    >
      {VALUE_TYPES.map((t) => (
        <option key={t} value={t}>
          {TYPE_LABELS[t]}
        </option>
      ))}
    </select>
  )
}

function InlineError(props: { id: string; message: string }) {
  return props.message ? (
    <p class="error field-error" id={props.id} role="alert">
      {props.message}
    </p>
  ) : null
}

/** One stored attribute, editable: a change (Enter or leaving the field) or a new type sends it. */
function AttributeRow(props: { name: string; value: unknown; index: number; write: Write }) {
  const [text, setText] = useState(show(props.value))
  const [type, setType] = useState(typeOf(props.value))
  const [message, setMessage] = useState('')
  // The stored value moved (this write, or someone else's after a reload): show it as stored.
  useEffect(() => {
    setText(show(props.value))
    setType(typeOf(props.value))
    setMessage('')
  }, [props.value])
  const errorId = `attribute-error-${props.index}`

  function send(nextText: string, nextType: ValueType): void {
    const encoded = encode(nextText, nextType)
    if (!encoded.ok) {
      setMessage(encoded.message)
      return
    }
    setMessage('')
    if (nextType === typeOf(props.value) && nextText === show(props.value)) return
    void props.write({ [props.name]: encoded.value })
  }

  return (
    <tr data-attribute={props.name}>
      <th scope="row">{props.name}</th>
      <td>
        <input
          aria-label={`Value of ${props.name}`}
          aria-invalid={message ? 'true' : undefined}
          aria-describedby={message ? errorId : undefined}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
          onChange={(e) => send(e.currentTarget.value, type)}
        />
        <InlineError id={errorId} message={message} />
      </td>
      <td>
        <TypeSelect
          label={`Type of ${props.name}`}
          value={type}
          onChange={(t) => {
            setType(t)
            send(text, t)
          }}
        />
      </td>
      <td>
        <button
          type="button"
          class="ghost small"
          aria-label={`Remove ${props.name}`}
          onClick={() => void props.write({ [props.name]: null })}
        >
          ✕
        </button>
      </td>
    </tr>
  )
}

/** A new attribute: name, type (text unless chosen), value. */
function NewAttribute(props: { write: Write }) {
  const [name, setName] = useState('')
  const [type, setType] = useState<ValueType>('text')
  const [value, setValue] = useState('')
  const [message, setMessage] = useState('')
  return (
    <form
      class="inline attribute-form"
      onSubmit={(e) => {
        e.preventDefault()
        const encoded = name.trim()
          ? encode(value, type)
          : { ok: false as const, message: 'Give the attribute a name.' }
        if (!encoded.ok) {
          setMessage(encoded.message)
          return
        }
        setMessage('')
        void props.write({ [name.trim()]: encoded.value }).then((ok) => {
          if (!ok) return
          setName('')
          setValue('')
          setType('text')
        })
      }}
    >
      <input
        aria-label="Attribute name"
        placeholder="name"
        value={name}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <TypeSelect label="Attribute type" value={type} onChange={setType} />
      <input
        aria-label="Attribute value"
        aria-invalid={message ? 'true' : undefined}
        aria-describedby={message ? 'new-attribute-error' : undefined}
        placeholder={type === 'boolean' ? 'true or false' : 'value'}
        value={value}
        onInput={(e) => setValue(e.currentTarget.value)}
      />
      <button type="submit">Set</button>
      <InlineError id="new-attribute-error" message={message} />
    </form>
  )
}

function ReadOnlyTable(props: { entries: [string, unknown][] }) {
  return (
    <table>
      <tbody>
        {props.entries.map(([key, v]) => (
          <tr key={key} data-attribute={key}>
            <th scope="row">{key}</th>
            <td>{show(v)}</td>
            <td class="meta">{TYPE_LABELS[typeOf(v)]}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

export function AttributesPanel(props: {
  file: string
  nodeId: string
  nodeName: string
  attributes: Attributes
  access: FileAccess
  onSaved: (attributes: Attributes) => void
}) {
  const action = useAction()
  const canWrite = props.access.capabilities.setAttributes

  const write = (changes: Attributes): Promise<boolean> =>
    action.run(async () => {
      const result = await client.scene.setAttributes(props.file, { [props.nodeId]: changes })
      props.onSaved(result[props.nodeId] ?? {})
    })

  const entries = Object.entries(props.attributes)
  return (
    <section class="attributes" aria-label="Attributes">
      <h3>Attributes of {props.nodeName || '(unnamed)'}</h3>
      {entries.length === 0 && <p class="hint">No attributes.</p>}
      {entries.length > 0 && !canWrite && <ReadOnlyTable entries={entries} />}
      {entries.length > 0 && canWrite && (
        <table>
          <tbody>
            {entries.map(([key, v], index) => (
              <AttributeRow key={key} name={key} value={v} index={index} write={write} />
            ))}
          </tbody>
        </table>
      )}
      {canWrite ? <NewAttribute write={write} /> : <p class="hint access-reason">{props.access.reason}</p>}
      <Notice kind="error" message={action.error} />
    </section>
  )
}

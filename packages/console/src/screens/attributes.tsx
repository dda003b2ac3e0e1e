// A node's attributes: view, edit, add and remove (POST /scene/attributes merges per attribute; a
// null removes one).
import { useState } from 'preact/hooks'
import { type Attributes, client } from '../api/index.ts'
import { describeError } from '../util.ts'

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** Numbers, booleans and JSON objects typed as such stay typed; anything else is text. */
function parse(text: string): unknown {
  try {
    const value = JSON.parse(text)
    return typeof value === 'string' ? text : value
  } catch {
    return text
  }
}

export function AttributesPanel(props: {
  file: string
  nodeId: string
  nodeName: string
  attributes: Attributes
  canWrite: boolean
  onSaved: (attributes: Attributes) => void
}) {
  const [name, setName] = useState('')
  const [value, setValue] = useState('')
  const [error, setError] = useState('')

  async function write(changes: Attributes): Promise<void> {
    setError('')
    try {
      const result = await client.scene.setAttributes(props.file, { [props.nodeId]: changes })
      props.onSaved(result[props.nodeId] ?? {})
    } catch (e) {
      setError(describeError(e))
    }
  }

  const entries = Object.entries(props.attributes)
  return (
    <section class="attributes" aria-label="Attributes">
      <h3>Attributes of {props.nodeName || '(unnamed)'}</h3>
      {entries.length === 0 ? (
        <p class="hint">No attributes.</p>
      ) : (
        <table>
          <tbody>
            {entries.map(([key, v]) => (
              <tr key={key}>
                <th scope="row">{key}</th>
                <td>
                  {props.canWrite ? (
                    <input
                      aria-label={`Value of ${key}`}
                      value={show(v)}
                      onChange={(e) => void write({ [key]: parse(e.currentTarget.value) })}
                    />
                  ) : (
                    show(v)
                  )}
                </td>
                {props.canWrite && (
                  <td>
                    <button
                      type="button"
                      class="ghost small"
                      aria-label={`Remove ${key}`}
                      onClick={() => void write({ [key]: null })}
                    >
                      ✕
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {props.canWrite && (
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault()
            if (!name.trim()) return
            void write({ [name.trim()]: parse(value) }).then(() => {
              setName('')
              setValue('')
            })
          }}
        >
          <input
            aria-label="Attribute name"
            placeholder="name"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <input
            aria-label="Attribute value"
            placeholder="value"
            value={value}
            onInput={(e) => setValue(e.currentTarget.value)}
          />
          <button type="submit">Set</button>
        </form>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  )
}

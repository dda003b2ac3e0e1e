// The one-condition property form, shared by the viewer's Find by property and the Search screen:
// Group, Property (text fields offering the names a catalogue knows, any text allowed), Comparison
// and Value; the submit button (or Enter in a field) asks. `idPrefix` keeps the ids of two forms
// apart; `children` are more buttons after the submit one (the Search screen's Stop).
import type { ComponentChildren } from 'preact'
import { type Catalogue, OPERATORS, type Operator, type Query } from './property-values.ts'

const placeholders: Record<string, string> = { number: 'a number', boolean: 'Yes or No', text: 'text' }

/** A labelled text field suggesting `options` (a datalist), any text allowed. */
function Suggested(props: {
  id: string
  label: string
  value: string
  options: string[]
  onInput: (value: string) => void
}) {
  const list = `${props.id}-options`
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        list={props.options.length > 0 ? list : undefined}
        autocomplete="off"
        value={props.value}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
      {props.options.length > 0 && (
        <datalist id={list}>
          {props.options.map((option) => (
            <option key={option} value={option} />
          ))}
        </datalist>
      )}
    </>
  )
}

export function PropertyQueryForm(props: {
  idPrefix: string
  query: Query
  /** The names seen so far (an empty map offers none). */
  catalogue: Catalogue
  submitLabel: string
  onQuery: (query: Query) => void
  onSubmit: () => void
  children?: ComponentChildren
}) {
  const { query, catalogue, idPrefix: id } = props
  const set = (patch: Partial<Query>) => props.onQuery({ ...query, ...patch })
  const names = catalogue.get(query.group.trim())
  const kind = names?.get(query.name.trim())
  return (
    <form
      class="property-query"
      onSubmit={(e) => {
        e.preventDefault()
        props.onSubmit()
      }}
    >
      <Suggested
        id={`${id}-group`}
        label="Group"
        value={query.group}
        options={[...catalogue.keys()]}
        onInput={(group) => set({ group })}
      />
      <Suggested
        id={`${id}-name`}
        label="Property"
        value={query.name}
        options={[...(names?.keys() ?? [])]}
        onInput={(name) => set({ name })}
      />
      <label for={`${id}-op`}>Comparison</label>
      <select
        id={`${id}-op`}
        value={query.op}
        onChange={(e) => set({ op: e.currentTarget.value as Operator })}
      >
        {OPERATORS.map(({ op, label }) => (
          <option key={op} value={op}>
            {label}
          </option>
        ))}
      </select>
      <label for={`${id}-value`}>Value</label>
      <input
        id={`${id}-value`}
        value={query.op === 'exists' ? '' : query.value}
        disabled={query.op === 'exists'}
        placeholder={kind && query.op !== 'exists' ? placeholders[kind] : undefined}
        onInput={(e) => set({ value: e.currentTarget.value })}
      />
      <div class="query-buttons">
        <button type="submit" class="small">
          {props.submitLabel}
        </button>
        {props.children}
      </div>
    </form>
  )
}

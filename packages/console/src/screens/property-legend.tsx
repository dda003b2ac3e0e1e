// The legend of "Colour by value": each value (or range) with its colour and how many parts have it,
// a button selecting those parts, the parts left out (without the property), and Clear colours.
import type { Colouring } from './property-search-state.ts'

const parts = (n: number) => `${n.toLocaleString('en')} ${n === 1 ? 'part' : 'parts'}`

export function PropertyLegend(props: {
  colouring: Colouring
  onSelect: (ids: string[]) => void
  onClear: () => void
}) {
  const { group, name, unit, legend } = props.colouring
  const title = `Colours by ${group} · ${name}${unit ? ` (${unit})` : ''}`
  return (
    <section class="property-legend" aria-label={title}>
      <h3>{title}</h3>
      <ul>
        {legend.entries.map((entry) => (
          <li
            key={entry.label}
            data-value={entry.label}
            data-colour={entry.colour}
            data-count={entry.ids.length}
          >
            <span class="swatch" aria-hidden="true" style={{ background: entry.colour }} />
            <span class="legend-label">{entry.label}</span>
            <span class="legend-count">
              {entry.ids.length.toLocaleString('en')}
              <span class="sr-only"> {entry.ids.length === 1 ? 'part' : 'parts'}</span>
            </span>
            <button
              type="button"
              class="ghost small"
              disabled={entry.ids.length === 0}
              aria-label={`Select the ${parts(entry.ids.length)} of ${entry.label}`}
              onClick={() => props.onSelect(entry.ids)}
            >
              Select
            </button>
          </li>
        ))}
      </ul>
      {legend.missing.length > 0 && (
        <p class="hint" data-missing={legend.missing.length}>
          {parts(legend.missing.length)} without this property keep their own colour.
        </p>
      )}
      <button type="button" class="ghost small" onClick={props.onClear}>
        Clear colours
      </button>
    </section>
  )
}

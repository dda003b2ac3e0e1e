// Find by property, under the tree's name search: a group, a property (the names seen so far are
// offered), a comparison and a value; "N parts found" in a live status; Select, Isolate (and Show
// all to come back) and Colour by value on what was found, with the legend of the colours under it
// (it stays while the parts are coloured, with Clear colours).
import { useState } from 'preact/hooks'
import { Notice } from '../ui/notice.tsx'
import { PropertyLegend } from './property-legend.tsx'
import { PropertyQueryForm } from './property-query.tsx'
import { type Colouring, type Found, MAX_FOUND, type PropertySearch } from './property-search-state.ts'

/** "N parts found" (and how many are used, past the bound; what they are coloured by). */
function countText(found: Found | null, colouring: Colouring | null): string {
  if (!found) return ''
  const n = found.total
  if (n === 0) return 'No parts found'
  const text = `${n.toLocaleString('en')} ${n === 1 ? 'part' : 'parts'} found`
  const used = n > found.ids.length ? `${text}; the first ${MAX_FOUND.toLocaleString('en')} are used` : text
  return colouring ? `${used}; coloured by ${colouring.group} · ${colouring.name}` : used
}

/** What can be done with the found parts: select, isolate (Show all comes back), colour. */
function FoundActions(props: {
  search: PropertySearch
  found: Found
  hidden: number
  onSelect: (ids: string[]) => void
  onIsolate: (ids: string[]) => void
  onShowAll: () => void
}) {
  const { search, found } = props
  const none = found.ids.length === 0
  const pairs = [...search.catalogue].flatMap(([g, names]) => [...names.keys()].map((n) => `${g}\n${n}`))
  const asked = `${found.query.group.trim()}\n${found.query.name.trim()}`
  if (!pairs.includes(asked)) pairs.unshift(asked)
  const [by, setBy] = useState(
    search.colouring ? `${search.colouring.group}\n${search.colouring.name}` : asked,
  )
  return (
    <fieldset class="property-actions" aria-label="Found parts">
      <button type="button" class="ghost small" disabled={none} onClick={() => props.onSelect(found.ids)}>
        Select
      </button>
      <button type="button" class="ghost small" disabled={none} onClick={() => props.onIsolate(found.ids)}>
        Isolate
      </button>
      {props.hidden > 0 && (
        <button type="button" class="ghost small" onClick={props.onShowAll}>
          Show all
        </button>
      )}
      <form
        class="property-colour"
        onSubmit={(e) => {
          e.preventDefault()
          const [group = '', name = ''] = by.split('\n')
          void search.colour(group, name)
        }}
      >
        <label for="property-colour-by">Colour by</label>
        <select id="property-colour-by" value={by} onChange={(e) => setBy(e.currentTarget.value)}>
          {pairs.map((p) => (
            <option key={p} value={p}>
              {p.replace('\n', ' · ')}
            </option>
          ))}
        </select>
        <button type="submit" class="ghost small" disabled={none}>
          Colour by value
        </button>
      </form>
    </fieldset>
  )
}

export function PropertyTools(props: {
  search: PropertySearch
  /** How many nodes are hidden now (Show all is offered while any is). */
  hidden: number
  onSelect: (ids: string[]) => void
  onIsolate: (ids: string[]) => void
  onShowAll: () => void
}) {
  const { search } = props
  const { found } = search
  return (
    <>
      <details
        class="property-find"
        open={search.open}
        onToggle={(e) => search.setOpen(e.currentTarget.open)}
      >
        <summary>Find by property</summary>
        <PropertyQueryForm
          idPrefix="property"
          query={search.query}
          catalogue={search.catalogue}
          submitLabel="Find"
          onQuery={search.setQuery}
          onSubmit={() => void search.find()}
        />
        <p class="property-count" role="status" data-count={found ? found.total : ''}>
          {search.progress || countText(found, search.colouring)}
        </p>
        <Notice kind="error" message={search.error} />
        {found && (
          <FoundActions key={`${JSON.stringify(found.query)} ${found.total}`} {...props} found={found} />
        )}
      </details>
      {search.colouring && (
        <PropertyLegend
          colouring={search.colouring}
          onSelect={props.onSelect}
          onClear={search.clearColours}
        />
      )}
    </>
  )
}

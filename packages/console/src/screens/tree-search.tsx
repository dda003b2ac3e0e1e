// Search over the scene tree by name (case-insensitive "contains"): typing is debounced, the search
// runs over the flattened index (tree-index.ts), the tree is filtered to the matches and the paths
// down to them, and the results can be selected or isolated at once.
import { useEffect, useMemo, useState } from 'preact/hooks'
import { type SearchResult, searchTree, type TreeIndex } from './tree-index.ts'
import type { RowFilter } from './tree-rows.ts'

/** Typing pauses this long before a search runs (each keystroke on a 100,000-node tree stays instant). */
const DEBOUNCE_MS = 150

export interface TreeSearch {
  text: string
  setText: (text: string) => void
  /** null: no search (the whole tree shows). */
  result: SearchResult | null
  filter: RowFilter | null
}

export function useTreeSearch(index: TreeIndex): TreeSearch {
  const [text, setText] = useState('')
  const [query, setQuery] = useState('')
  useEffect(() => {
    const timer = setTimeout(() => setQuery(text.trim()), DEBOUNCE_MS)
    return () => clearTimeout(timer)
  }, [text])
  const result = useMemo(() => (query ? searchTree(index, query) : null), [index, query])
  const filter = useMemo(
    () => (result ? { matches: new Set(result.ids), paths: result.paths } : null),
    [result],
  )
  return { text, setText, result, filter }
}

function countText(result: SearchResult | null): string {
  if (!result) return ''
  const n = result.ids.length
  return n === 0 ? 'No parts match' : `${n.toLocaleString('en')} ${n === 1 ? 'part matches' : 'parts match'}`
}

export function TreeSearchBox(props: {
  search: TreeSearch
  onSelectAll: (ids: string[]) => void
  onIsolate: (ids: string[]) => void
}) {
  const { search } = props
  const found = search.result?.ids ?? []
  return (
    <search class="tree-search">
      <input
        type="search"
        aria-label="Search parts by name"
        placeholder="Search parts"
        value={search.text}
        onInput={(e) => search.setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && search.text) {
            // Esc clears the search first (the next one leaves the box as usual).
            e.stopPropagation()
            search.setText('')
          }
        }}
      />
      <p class="tree-search-count" role="status" data-count={search.result ? found.length : ''}>
        {countText(search.result)}
      </p>
      {search.result && (
        <div class="tree-search-actions">
          <button
            type="button"
            class="ghost small"
            disabled={found.length === 0}
            onClick={() => props.onSelectAll(found)}
          >
            Select all results
          </button>
          <button
            type="button"
            class="ghost small"
            disabled={found.length === 0}
            onClick={() => props.onIsolate(found)}
          >
            Isolate results
          </button>
        </div>
      )}
    </search>
  )
}

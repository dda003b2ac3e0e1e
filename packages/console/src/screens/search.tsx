// Search models: one property condition (the viewer's Find by property form) asked across every
// file I may read, own and shared (POST /scene/search/files, page after page); the files found with
// their folder, my role and how many parts match, each a link into the viewer with the same search
// filled in and run. Stop ends a long search; the address keeps the query.
import type { FileMatch } from '../api/index.ts'
import { linkClick } from '../router.ts'
import { Notice } from '../ui/notice.tsx'
import { PropertyQueryForm } from './property-query.tsx'
import type { Query } from './property-values.ts'
import { type FileSearch, MAX_FILES, NO_NAMES, searchUrl, useFileSearch } from './search-state.ts'

const ROLE: Record<FileMatch['role'], string> = { owner: 'Owner', editor: 'Editor', viewer: 'Viewer' }

const count = (n: number, one: string, many: string) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`

/** The live status line: "Searching…", then "N files found (M parts)", "No files found", … */
function statusText(search: FileSearch): string {
  const { files, phase } = search
  const parts = files.reduce((sum, f) => sum + f.matches, 0)
  const found = `${count(files.length, 'file', 'files')} found (${count(parts, 'part', 'parts')})`
  switch (phase) {
    case 'idle':
      return ''
    case 'searching':
      return 'Searching…'
    case 'done':
      return files.length === 0 ? 'No files found' : found
    case 'capped':
      return `${found}: the search stops at ${MAX_FILES.toLocaleString('en')} files, narrow it down to see the rest`
    case 'stopped':
      return files.length === 0 ? 'Search stopped: no files found so far' : `Search stopped: ${found} so far`
    case 'failed':
      return files.length === 0 ? '' : `${found} before the search failed`
  }
}

function Results(props: { files: FileMatch[]; asked: Query }) {
  return (
    <div class="search-results">
      <table class="grid">
        <caption class="sr-only">Files found</caption>
        <thead>
          <tr>
            <th scope="col">File</th>
            <th scope="col">Folder</th>
            <th scope="col">Your role</th>
            <th scope="col" class="count">
              Matching parts
            </th>
          </tr>
        </thead>
        <tbody>
          {props.files.map((f) => {
            const to = searchUrl(props.asked, f.file)
            return (
              <tr key={f.file} data-file={f.name}>
                <td>
                  <a class="file-link" href={to} onClick={(e) => linkClick(e, to)}>
                    {f.name}
                  </a>
                </td>
                <td class="folder">{f.parent}</td>
                <td>{ROLE[f.role]}</td>
                <td class="count">{f.matches.toLocaleString('en')}</td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}

export function SearchScreen(props: { find: string | null }) {
  const search = useFileSearch(props.find)
  const { files, asked, phase } = search
  return (
    <section class="search-files" aria-label="Search models">
      <h1>Search models</h1>
      <p class="hint">
        The models you can open, your own and those shared with you, that have parts with this property. Open
        one to see those parts found in the viewer.
      </p>
      <PropertyQueryForm
        idPrefix="search"
        query={search.query}
        catalogue={NO_NAMES}
        submitLabel="Search"
        onQuery={search.setQuery}
        onSubmit={search.submit}
      >
        {phase === 'searching' && (
          <button
            type="button"
            class="ghost small"
            onClick={(e) => {
              // The button goes away: the focus moves to Search rather than to the page.
              e.currentTarget.form?.querySelector<HTMLElement>('button[type="submit"]')?.focus()
              search.stop()
            }}
          >
            Stop
          </button>
        )}
      </PropertyQueryForm>
      <p class="search-status" role="status" data-phase={phase} data-count={files.length}>
        {statusText(search)}
      </p>
      <Notice kind="error" message={search.error} />
      {asked && files.length > 0 && <Results files={files} asked={asked} />}
    </section>
  )
}

// The Search screen's state: the query typed, the one asked (the address keeps it: `/search?find=`,
// so a reload or Back asks again), and the files found, read page after page (POST
// /scene/search/files) until the server says the search is done (`nextCursor` null; a page may hold
// no file and still have one) or MAX_FILES are found. A newer search, Stop or leaving the screen
// makes an older search's answers stale: they are dropped.
import { useEffect, useRef, useState } from 'preact/hooks'
import { client, type FileMatch, isSessionLost } from '../api/index.ts'
import { navigate } from '../router.ts'
import { describeError, sortByName } from '../util.ts'
import { type Catalogue, conditionOf, type Query, queryFromParam, queryParam } from './property-values.ts'

/** The most files a search lists: past them it stops and says so. */
export const MAX_FILES = 1000
/** Files asked per page (the server's most). */
const PAGE = 200
/** The screen knows no names: what is typed is sent as it is (text, or a number to compare). */
export const NO_NAMES: Catalogue = new Map()

/** `capped`: MAX_FILES found and the server had more to look into. */
export type SearchPhase = 'idle' | 'searching' | 'done' | 'capped' | 'stopped' | 'failed'

const BLANK: Query = { group: '', name: '', op: 'eq', value: '' }

/** The address of a search: this screen's, or the viewer's of one file found (`/view/<id>?find=`). */
export function searchUrl(query: Query, file?: string): string {
  return `${file ? `/view/${encodeURIComponent(file)}` : '/search'}?find=${queryParam(query)}`
}

export function useFileSearch(find: string | null) {
  const [query, setQuery] = useState<Query>(() => queryFromParam(find) ?? BLANK)
  const [asked, setAsked] = useState<Query | null>(null)
  const [files, setFiles] = useState<FileMatch[]>([])
  const [phase, setPhase] = useState<SearchPhase>('idle')
  const [error, setError] = useState('')
  const runs = useRef(0)

  async function run(question: Query): Promise<void> {
    const made = conditionOf(question, NO_NAMES)
    const mine = ++runs.current
    setFiles([])
    setError(made.ok ? '' : made.message)
    setAsked(made.ok ? question : null)
    setPhase(made.ok ? 'searching' : 'idle')
    if (!made.ok) return
    const found: FileMatch[] = []
    let cursor: string | undefined
    try {
      do {
        const limit = Math.min(PAGE, MAX_FILES - found.length)
        const page = await client.files.searchFiles([made.condition], {
          limit,
          ...(cursor ? { cursor } : {}),
        })
        if (mine !== runs.current) return
        found.push(...page.files)
        setFiles(sortByName(found))
        cursor = page.nextCursor ?? undefined
      } while (cursor && found.length < MAX_FILES)
      setPhase(cursor ? 'capped' : 'done')
    } catch (e) {
      if (mine !== runs.current) return
      setPhase('failed')
      if (!isSessionLost(e)) setError(describeError(e))
    }
  }

  // The address asks: on open, after a search is submitted, on Back and Forward.
  useEffect(() => {
    const handed = queryFromParam(find)
    if (handed) {
      setQuery(handed)
      void run(handed)
    } else {
      runs.current++
      setAsked(null)
      setFiles([])
      setPhase('idle')
    }
    return () => {
      runs.current++
    }
  }, [find])

  /** Asks what is typed: a new address (kept in the history), or the same search again. */
  const submit = (): void => {
    const to = searchUrl(query)
    const here = to === window.location.pathname + window.location.search
    // What cannot be asked says why without a new address.
    if (here || !conditionOf(query, NO_NAMES).ok) void run(query)
    else navigate(to)
  }

  const stop = (): void => {
    runs.current++
    setPhase('stopped')
  }

  return { query, setQuery, asked, files, phase, error, submit, stop }
}

export type FileSearch = ReturnType<typeof useFileSearch>

// Find by property: the query typed, the parts the server found (POST /scene/search, at most 5,000
// of them, pages of 1,000), the names a search can offer (learned from the properties read: a first
// page when the panel opens, and each selected part's) and the found parts coloured by a value
// (their properties read 100 parts a call, then a legend and the colours handed to the engine).
// Held by the viewer screen: it outlasts a switch of tabs.
import type { RefObject } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { client, type PropertyValue, type SceneProperties, type SearchCondition } from '../api/index.ts'
import { describeError } from '../util.ts'
import type { ViewerEngine } from '../viewer/engine.ts'
import { coloursOf, type Legend, legendOf } from './property-colours.ts'
import { type Catalogue, conditionOf, learnNames, type Query } from './property-values.ts'

/** The most parts a search keeps (and selects, isolates or colours). */
export const MAX_FOUND = 5000
const SEARCH_PAGE = 1000
/** Nodes per properties call while colouring (the server's most per call). */
const VALUES_PAGE = 100
/** Nodes of the first properties page read for the names a search offers. */
const NAMES_SAMPLE = 500

export interface Found {
  ids: string[]
  /** Every match, past MAX_FOUND too. */
  total: number
  query: Query
}

export interface Colouring {
  group: string
  name: string
  unit: string | undefined
  legend: Legend
}

const own = <T>(record: Record<string, T> | undefined, key: string): T | undefined =>
  record && Object.hasOwn(record, key) ? record[key] : undefined

/** The value of group.name in each of these nodes' properties (undefined where it is missing). */
function valuesIn(properties: SceneProperties, ids: string[], group: string, name: string) {
  return ids.map((id) => [id, own(own(own(properties.nodeIdToProperties, id), group), name)] as const)
}

/** The names a search offers: a first page of properties read once the panel opens, and what `learn` is given. */
function useCatalogue(file: string, open: boolean) {
  const [catalogue, setCatalogue] = useState<Catalogue>(() => new Map())
  const sampled = useRef(false)
  const learn = (properties: SceneProperties): void =>
    setCatalogue((c) => learnNames(c, properties.nodeIdToProperties))
  useEffect(() => {
    if (!open || sampled.current) return
    sampled.current = true
    client.scene
      .somePropertyNames(file, NAMES_SAMPLE)
      .then(learn)
      .catch(() => {
        sampled.current = false
      })
  }, [open, file])
  return { catalogue, learn }
}

/**
 * One search or colouring at a time: `run(work)` shows its progress and its error; a newer run
 * makes an older one's answers stale (`current()` turns false), so they are dropped.
 */
function useRuns() {
  const [progress, setProgress] = useState('')
  const [error, setError] = useState('')
  const runs = useRef(0)
  async function run(work: (current: () => boolean) => Promise<void>): Promise<void> {
    const mine = ++runs.current
    const current = () => mine === runs.current
    setError('')
    try {
      await work(current)
    } catch (e) {
      if (current()) setError(describeError(e))
    } finally {
      if (current()) setProgress('')
    }
  }
  return { progress, setProgress, error, setError, run }
}

/** Every page of the search, up to MAX_FOUND node IDs. */
async function searchAll(file: string, condition: SearchCondition, current: () => boolean) {
  const ids: string[] = []
  let total = 0
  let cursor: string | undefined
  do {
    const limit = Math.min(SEARCH_PAGE, MAX_FOUND - ids.length)
    const page = await client.scene.search(file, [condition], { limit, ...(cursor ? { cursor } : {}) })
    if (!current()) return null
    ids.push(...page.nodes)
    total = page.total
    cursor = page.nextCursor ?? undefined
  } while (cursor && ids.length < MAX_FOUND)
  return { ids, total }
}

/**
 * `handed`: a query handed over in the address (`?find=`, the Search screen's links): the
 * disclosure opens with it filled in and it runs once, as soon as the viewer opens.
 */
export function usePropertySearch(
  file: string,
  engine: RefObject<ViewerEngine | null>,
  handed: Query | null = null,
) {
  const [open, setOpen] = useState(handed !== null)
  const { catalogue, learn } = useCatalogue(file, open)
  const [query, setQuery] = useState<Query>(handed ?? { group: '', name: '', op: 'eq', value: '' })
  const [found, setFound] = useState<Found | null>(null)
  const [colouring, setColouring] = useState<Colouring | null>(null)
  const runs = useRuns()

  const clearColours = (): void => {
    engine.current?.selection.colours.set(null)
    setColouring(null)
  }

  const find = (): Promise<void> => {
    const made = conditionOf(query, catalogue)
    if (!made.ok) {
      runs.setError(made.message)
      return Promise.resolve()
    }
    clearColours()
    setFound(null)
    const asked = { ...query }
    return runs.run(async (current) => {
      runs.setProgress('Searching…')
      const result = await searchAll(file, made.condition, current)
      if (result) setFound({ ...result, query: asked })
    })
  }

  // Once per file opened: `find` reads the handed query (the state's first value).
  useEffect(() => {
    if (handed) void find()
  }, [file])

  const colour = (group: string, name: string): Promise<void> => {
    const ids = found?.ids ?? []
    return runs.run(async (current) => {
      const values = new Map<string, PropertyValue | undefined>()
      let unit: string | undefined
      for (let at = 0; at < ids.length; at += VALUES_PAGE) {
        runs.setProgress(`Reading values… ${at.toLocaleString('en')} of ${ids.length.toLocaleString('en')}`)
        const chunk = ids.slice(at, at + VALUES_PAGE)
        const page = await client.scene.properties(file, chunk)
        if (!current()) return
        learn(page)
        unit ??= own(own(page.units, group), name)
        for (const [id, value] of valuesIn(page, chunk, group, name)) values.set(id, value)
      }
      const legend = legendOf(values)
      engine.current?.selection.colours.set(coloursOf(legend))
      setColouring({ group, name, unit, legend })
    })
  }

  const { progress, error } = runs
  return {
    open,
    setOpen,
    catalogue,
    learn,
    query,
    setQuery,
    found,
    colouring,
    progress,
    error,
    find,
    colour,
    clearColours,
  }
}

export type PropertySearch = ReturnType<typeof usePropertySearch>

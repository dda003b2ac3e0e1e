// `npm run bench:properties -- --across 200`: the search across files (POST /scene/search/files) over
// an account of N files, each a generated building of `elements` elements (estate.ts), stored as a
// conversion stores them. Each case is timed as a user waits for it, every page followed to the null
// cursor (pages of 200 files, each also bounded by the server's time per page), against
// what a client pays without it: POST /scene/search on each file in turn, over the same connection
// pool, in the same run.
import { signedIn } from '../../packages/server/test/support/api.ts'
import { insertFileRow } from '../../packages/server/test/support/file-rows.ts'
import { dialects, startApp, type TestApp } from '../../packages/server/test/support/harness.ts'
import type { ResultRow } from '../results.ts'
import { estateOf, storeEstate } from './estate.ts'

interface Timing {
  p50: number
  p95: number
}

type Timer = (call: () => Promise<unknown>) => Promise<Timing>

const CASES: { name: string; where: unknown[] }[] = [
  {
    name: 'doors rated REI60',
    where: [
      { group: 'IFC', name: 'class', op: 'eq', value: 'IfcDoor' },
      { group: 'Pset_DoorCommon', name: 'FireRating', op: 'eq', value: 'REI60' },
    ],
  },
  { name: 'a property no file has', where: [{ group: 'Pset_Missing', name: 'Code', op: 'exists' }] },
  { name: 'node name contains "door 1"', where: [{ node: 'name', op: 'contains', value: 'door 1' }] },
  {
    name: 'classified (every element)',
    where: [{ group: 'Classification', name: 'Uniclass', op: 'exists' }],
  },
]

/** N files of one estate each, stored and published as the conversion does. */
async function storeFiles(t: TestApp, ownerId: string, files: number, elements: number): Promise<string[]> {
  const estate = estateOf(elements)
  const ids: string[] = []
  for (let f = 0; f < files; f++) {
    const fileId = await insertFileRow({ ctx: { db: t.db } }, ownerId, { name: `building-${f}.ifc` })
    await storeEstate(t.db, fileId, estate)
    ids.push(fileId)
  }
  return ids
}

async function post(base: string, path: string, headers: Record<string, string>, body: unknown) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const text = await res.text()
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 200)}`)
  return JSON.parse(text) as Record<string, unknown>
}

async function benchDialect(
  dialect: ReturnType<typeof dialects>[number],
  options: { files: number; elements: number; time: Timer },
): Promise<ResultRow[]> {
  const t = await startApp(dialect, { licenses: 10 })
  const rows: ResultRow[] = []
  try {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' })
    const user = await signedIn(t.app, 'bench')
    const started = performance.now()
    const fileIds = await storeFiles(t, user.account.id, options.files, options.elements)
    console.log(
      `${dialect.name}: ${options.files} files of ${options.elements} elements stored in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    )
    for (const c of CASES) {
      // What a user waits for: every page, followed to the null cursor.
      let pages = 0
      const across = async () => {
        const files: { matches: number }[] = []
        let cursor: string | null = null
        pages = 0
        do {
          const body = { where: c.where, limit: 200, ...(cursor ? { cursor } : {}) }
          const page = (await post(base, '/scene/search/files', user.headers, body)) as {
            files: { matches: number }[]
            nextCursor: string | null
          }
          files.push(...page.files)
          cursor = page.nextCursor
          pages++
        } while (cursor)
        return files
      }
      const found = await across()
      const byHand = async () => {
        for (const file of fileIds)
          await post(base, '/scene/search', user.headers, { file, where: c.where, limit: 1 })
      }
      const timed = await options.time(across)
      const hand = await options.time(byHand)
      const matches = found.reduce((sum, f) => sum + f.matches, 0)
      console.log(
        `  ${c.name.padEnd(30)} p50 ${timed.p50.toFixed(1).padStart(7)} ms  p95 ${timed.p95.toFixed(1).padStart(7)} ms  (${pages} page${pages === 1 ? '' : 's'}, ${found.length} files, ${matches} nodes; each file by hand p95 ${hand.p95.toFixed(1)} ms)`,
      )
      const at = {
        dialect: dialect.name,
        case: c.name,
        files: options.files,
        elements: options.elements,
        pages,
      }
      rows.push({ metric: 'across_p50', value: Number(timed.p50.toFixed(1)), unit: 'ms', ...at })
      rows.push({
        metric: 'across_p95',
        value: Number(timed.p95.toFixed(1)),
        unit: 'ms',
        ratio: Number((timed.p95 / hand.p95).toFixed(2)),
        baseline: 'POST /scene/search on each file in turn, same run',
        ...at,
      })
    }
  } finally {
    await t.close()
  }
  return rows
}

export async function acrossBench(options: {
  files: number
  elements: number
  dialect: string | undefined
  time: Timer
}): Promise<ResultRow[]> {
  const rows: ResultRow[] = []
  for (const dialect of dialects().filter((d) => !options.dialect || d.name === options.dialect)) {
    rows.push(...(await benchDialect(dialect, options)))
  }
  return rows
}

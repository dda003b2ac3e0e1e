// Model properties benchmark (`npm run bench:properties`, docs/benchmarks.md): a generated building
// of 50,000 elements with IFC-like properties (identity, a common property set, base quantities
// with units, a layered material, a classification: 26 per element, 1.3 M in all) is stored the way
// a conversion stores it, then searched and read over HTTP, on every dialect.
//
//   npm run bench:properties -- [--elements 50000] [--rounds 40] [--dialect sqlite|postgres]
//   npm run bench:properties -- --convert 50000 [--before <checkout without extraction>]
//   npm run bench:properties -- --across 200 [--elements 250] [--rounds 10] [--dialect …]
//
// `--across N` instead times the search across files over N files of `--elements` elements each
// (peers/properties-across.ts), against searching each file in turn.
//
// `--convert N` instead converts a generated IFC of N walls with property sets
// (peers/ifc-walls.ts) in the conversion child process, as the worker does, and stores what it
// extracted on every dialect: the conversion time and peak memory with extraction, and with
// `--before` the same of an older checkout's child (`git worktree add /tmp/before <commit>`, its
// node_modules linked to this one's), alternating, two rounds each.
//
// Per dialect: the store time (replaceSceneProperties in one transaction, as the worker runs it),
// the storage it takes, and p50/p95 of each search and read, against a bare Fastify route answering
// a body of the same size on the same machine in the same run (the floor of an HTTP round trip).
import { parseArgs } from 'node:util'
import Fastify from 'fastify'
import { signedIn } from '../packages/server/test/support/api.ts'
import { insertFileRow } from '../packages/server/test/support/file-rows.ts'
import { dialects, startApp, type TestApp } from '../packages/server/test/support/harness.ts'
import { estateOf, storeEstate } from './peers/estate.ts'
import { acrossBench } from './peers/properties-across.ts'
import { convertBench } from './peers/properties-convert.ts'
import { type ResultRow, record } from './results.ts'

const { values: args } = parseArgs({
  options: {
    elements: { type: 'string' },
    rounds: { type: 'string' },
    dialect: { type: 'string' },
    convert: { type: 'string' },
    across: { type: 'string' },
    before: { type: 'string' },
  },
})
const ELEMENTS = Number(args.elements ?? (args.across ? 250 : 50_000))
const estate = estateOf(ELEMENTS)
const ROUNDS = Number(args.rounds ?? (args.across ? 10 : 40))
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0

/** p50 and p95 of `rounds` calls after three warm-ups, in ms. */
async function timeCalls(call: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < 3; i++) await call()
  const times: number[] = []
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now()
    await call()
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95) }
}

async function storageBytes(t: TestApp, dialect: string): Promise<number> {
  const tables = ['scene_properties', 'scene_property_keys']
  if (dialect === 'postgres') {
    const row = await t.db.kysely
      .selectNoFrom((eb) =>
        tables.map((table, k) => eb.fn<string>('pg_total_relation_size', [eb.val(table)]).as(`t${k}`)),
      )
      .executeTakeFirstOrThrow()
    return Object.values(row).reduce((sum, bytes) => sum + Number(bytes), 0)
  }
  // SQLite's dbstat virtual table: every b-tree of the tables (a WITHOUT ROWID table and its indexes).
  const rows = await t.db.kysely
    .withTables<{ dbstat: { name: string; pgsize: number } }>()
    .selectFrom('dbstat')
    .select(['name', 'pgsize'])
    .execute()
  const index = (name: string) =>
    name.startsWith('scene_propert') || name.startsWith('sqlite_autoindex_scene_propert')
  return rows.filter((row) => index(row.name)).reduce((sum, row) => sum + row.pgsize, 0)
}

interface Case {
  name: string
  body?: Record<string, unknown>
  url?: string
}

function cases(fileId: string): Case[] {
  const where = (...conditions: unknown[]) => ({ file: fileId, where: conditions, limit: 100 })
  return [
    {
      name: 'class = IfcDoor (5,000 match)',
      body: where({ group: 'IFC', name: 'class', op: 'eq', value: 'IfcDoor' }),
    },
    {
      name: 'wall REI60 and external',
      body: where(
        { group: 'Pset_WallCommon', name: 'FireRating', op: 'eq', value: 'REI60' },
        { group: 'Pset_WallCommon', name: 'IsExternal', op: 'eq', value: true },
      ),
    },
    {
      name: 'wall length 4–5 m',
      body: where(
        { group: 'Qto_WallBaseQuantities', name: 'Length', op: 'gte', value: 4 },
        { group: 'Qto_WallBaseQuantities', name: 'Length', op: 'lt', value: 5 },
      ),
    },
    {
      name: 'rating contains "rei1"',
      body: where({ group: 'Pset_WallCommon', name: 'FireRating', op: 'contains', value: 'rei1' }),
    },
    { name: 'node name contains "door 12"', body: where({ node: 'name', op: 'contains', value: 'door 12' }) },
    {
      name: 'classified (exists, 50,000 match)',
      body: where({ group: 'Classification', name: 'Uniclass', op: 'exists' }),
    },
    {
      name: 'one node’s properties',
      url: `/scene/properties?file=${fileId}&node=${estate.elementId(Math.min(4242, ELEMENTS - 1))}`,
    },
    { name: 'a page of 1,000 nodes', url: `/scene/properties?file=${fileId}&limit=1000` },
  ]
}

async function benchDialect(
  dialect: ReturnType<typeof dialects>[number],
  bare: string,
): Promise<ResultRow[]> {
  const t = await startApp(dialect, { licenses: 10 })
  const rows: ResultRow[] = []
  try {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' })
    const user = await signedIn(t.app, 'bench')
    const fileId = await insertFileRow({ ctx: { db: t.db } }, user.account.id, { name: 'estate.ifc' })
    const other = await insertFileRow({ ctx: { db: t.db } }, user.account.id, { name: 'other.glb' })
    const writes = writeLoop(base, user.headers, other)
    const started = performance.now()
    const stored = await storeEstate(t.db, fileId, estate)
    const storeMs = performance.now() - started
    const waits = await writes.stop()
    console.log(
      `${dialect.name}: another file's attribute writes during the store: ${waits.count}, p99 ${waits.p99.toFixed(0)} ms, max ${waits.max.toFixed(0)} ms`,
    )
    rows.push({
      metric: 'write_during_store_max',
      value: Math.round(waits.max),
      unit: 'ms',
      dialect: dialect.name,
    })
    const bytes = await storageBytes(t, dialect.name)
    console.log(
      `${dialect.name}: stored ${stored.properties.toLocaleString()} properties of ${stored.nodes.toLocaleString()} nodes in ${(storeMs / 1000).toFixed(1)} s, ${(bytes / 1024 / 1024).toFixed(0)} MiB`,
    )
    rows.push({
      metric: 'store_time',
      value: Math.round(storeMs),
      unit: 'ms',
      dialect: dialect.name,
      properties: stored.properties,
    })
    rows.push({
      metric: 'storage',
      value: Math.round(bytes / 1024 / 1024),
      unit: 'MiB',
      dialect: dialect.name,
    })
    for (const c of cases(fileId)) {
      const call = async () => {
        const res = await fetch(`${base}${c.url ?? '/scene/search'}`, {
          method: c.url ? 'GET' : 'POST',
          headers: { ...user.headers, 'content-type': 'application/json' },
          ...(c.body ? { body: JSON.stringify(c.body) } : {}),
        })
        const text = await res.text()
        if (res.status !== 200) throw new Error(`${c.name}: ${res.status} ${text.slice(0, 200)}`)
        return text
      }
      const sample = await call()
      const floor = await timeCalls(() => fetch(`${bare}?bytes=${sample.length}`).then((r) => r.text()))
      const timed = await timeCalls(call)
      const total = c.body ? (JSON.parse(sample) as { total: number }).total : undefined
      console.log(
        `  ${c.name.padEnd(36)} p50 ${timed.p50.toFixed(1).padStart(6)} ms  p95 ${timed.p95.toFixed(1).padStart(6)} ms  (bare route p95 ${floor.p95.toFixed(1)} ms, ${sample.length} B${total === undefined ? '' : `, total ${total}`})`,
      )
      const at = { dialect: dialect.name, case: c.name, baseline: 'bare Fastify route, same body size' }
      rows.push({ metric: 'latency_p50', value: Number(timed.p50.toFixed(2)), unit: 'ms', ...at })
      rows.push({
        metric: 'latency_p95',
        value: Number(timed.p95.toFixed(2)),
        unit: 'ms',
        ratio: Number((timed.p95 / floor.p95).toFixed(1)),
        ...at,
      })
    }
  } finally {
    await t.close()
  }
  return rows
}

/** POST /scene/attributes on another file in a loop until stopped: what other writers wait meanwhile. */
function writeLoop(base: string, headers: Record<string, string>, fileId: string) {
  let running = true
  const times: number[] = []
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const started = performance.now()
      const res = await fetch(`${base}/scene/attributes`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ file: fileId, nodeIdToAttributes: { [`n${i % 100}`]: { seen: i } } }),
      })
      await res.text()
      times.push(performance.now() - started)
    }
  })()
  return {
    async stop() {
      running = false
      await loop
      times.sort((a, b) => a - b)
      return { count: times.length, p99: percentile(times, 0.99), max: times.at(-1) ?? 0 }
    },
  }
}

/** A route answering `bytes` bytes of JSON-ish text: an HTTP round trip with nothing behind it. */
async function bareRoute(): Promise<{ url: string; close: () => Promise<void> }> {
  const app = Fastify()
  app.get('/', async (request) => {
    const bytes = Number((request.query as { bytes?: string }).bytes ?? 100)
    return `{"success":true,"pad":"${'x'.repeat(Math.max(0, bytes - 26))}"}`
  })
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  return { url: `${url}/`, close: () => app.close() }
}

async function main(): Promise<void> {
  if (args.convert) return convertBench(Number(args.convert))
  if (args.across) {
    const options = { files: Number(args.across), elements: ELEMENTS, dialect: args.dialect, time: timeCalls }
    record('properties', await acrossBench(options))
    return
  }
  const bare = await bareRoute()
  const rows: ResultRow[] = []
  try {
    for (const dialect of dialects().filter((d) => !args.dialect || d.name === args.dialect)) {
      rows.push(...(await benchDialect(dialect, bare.url)))
    }
  } finally {
    await bare.close()
  }
  record('properties', rows)
}

await main()

// BCF benchmark (`npm run bench:bcf`, docs/benchmarks.md): what exporting and importing a busy file
// costs, on every dialect. A converted IFC (the house fixture) carries 1,000 annotations placed on
// its walls, a third of them with a discussion of three replies, and 100 saved views with a
// section box, hidden and selected parts and a thumbnail.
//
//   npm run bench:bcf -- [--annotations 1000] [--views 100] [--rounds 5] [--dialect sqlite|postgres]
//
// Export: GET /file/:id/bcf over HTTP, p50 of the rounds, against a bare Fastify route sending the
// same bytes (the floor of the round trip). Import: POST of that zip into a fresh upload of the same
// model, against reading the zip alone on the main thread (unzip and XML parse, the floor of any
// import), with the event loop's longest stall meanwhile (the reading runs in a worker thread). Last,
// a hostile file at the XML bound's scale (8 viewpoints of 60,000 components, 22 MB of XML): how long
// it is read and what it stalls, in the worker and, for comparison, on the main thread.
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import Fastify from 'fastify'
import { readBcf } from '../packages/server/src/modules/bcf/read.ts'
import { readBcfInWorker } from '../packages/server/src/modules/bcf/reading.ts'
import { zipFiles } from '../packages/server/test/support/bcf-fixtures.ts'
import { shareFileRow, team } from '../packages/server/test/support/file-rows.ts'
import { uploadFile } from '../packages/server/test/support/files.ts'
import { dialects, startApp, type TestApp } from '../packages/server/test/support/harness.ts'
import { until } from '../packages/server/test/support/receiver.ts'
import { type ResultRow, record } from './results.ts'

const { values: args } = parseArgs({
  options: {
    annotations: { type: 'string', default: '1000' },
    views: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '5' },
    dialect: { type: 'string' },
  },
})
const ANNOTATIONS = Number(args.annotations)
const VIEWS = Number(args.views)
const ROUNDS = Number(args.rounds)
/** A 64×48 PNG of the BCF fixtures: each view's thumbnail. */
const SNAPSHOT = new URL(
  '../packages/server/test/fixtures/bcf/v30/1f89a80c-1e6d-415f-964c-5b6ba1cfa162/Snapshot_f08ff3a2-058a-4d24-92f3-33f3cf45387d.png',
  import.meta.url,
)
const HOUSE = readFileSync(
  new URL('../packages/server/test/fixtures/conversion/house-properties.ifc', import.meta.url),
)

type Headers = Record<string, string>
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

async function converted(
  t: TestApp,
  headers: Headers,
  name: string,
): Promise<{ id: string; nodes: string[] }> {
  const file = await uploadFile(t.app, headers, { name, data: HOUSE })
  await until(
    `${name} ready`,
    async () => {
      const res = await t.app.inject({ method: 'GET', url: `/file/${file._id}`, headers })
      return (res.json() as { file: { state: string } }).file.state === 'ready' ? true : undefined
    },
    120_000,
  )
  const tree = await t.app.inject({ method: 'GET', url: `/scene/properties?file=${file._id}`, headers })
  const nodes = Object.keys(
    (tree.json() as { nodeIdToProperties: Record<string, unknown> }).nodeIdToProperties,
  )
  return { id: file._id, nodes }
}

async function call(t: TestApp, headers: Headers, url: string, payload: unknown): Promise<{ _id: string }> {
  const res = await t.app.inject({
    method: 'POST',
    url,
    headers,
    payload: payload as Record<string, unknown>,
  })
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`)
  const body = res.json() as Record<string, { _id: string }>
  return Object.values(body).find((v) => typeof v === 'object' && v !== null) as { _id: string }
}

async function seedAnnotations(t: TestApp, headers: Headers, file: { id: string; nodes: string[] }) {
  for (let i = 0; i < ANNOTATIONS; i++) {
    const node = file.nodes[i % file.nodes.length]
    const a = await call(t, headers, '/annotation/create/', {
      file: file.id,
      name: `Issue ${i}: joint to check`,
      content: 'The joint between the wall and the slab shows a gap of about 5 mm. '.repeat(3),
      tags: ['structure', i % 2 ? 'urgent' : 'later'],
      cameraX: 8 + (i % 7),
      cameraY: 5,
      cameraZ: 9,
      targets: [{ type: 'point', position: [1, 1.5, 0], node, cameraTarget: [1, 1, -1] }],
    })
    if (i % 3 === 0) {
      for (let r = 0; r < 3; r++) {
        await call(t, headers, '/annotation/reply/create/', {
          annotation: a._id,
          text: `Reply ${r}: checked on site.`,
        })
      }
    }
  }
}

async function seedViews(t: TestApp, headers: Headers, file: { id: string; nodes: string[] }) {
  const png = readFileSync(SNAPSHOT)
  for (let i = 0; i < VIEWS; i++) {
    const view = await call(t, headers, '/file/configuration/', {
      file: file.id,
      name: `View ${i}`,
      cameraPosition: [12, 6, 14 + i, 0.5, 1, -0.5],
      selectedNodes: file.nodes.slice(0, 3),
      rememberSelection: true,
      modifiers: [{ type: 'hidden', nodes: file.nodes.slice(3, 5) }],
      modifiersEnabled: true,
      enabledClippingPlanes: [{ type: 'box', id: 'box', min: [-1, -0.5, -6], max: [6, 3, 1], enabled: true }],
      clippingPlanesEnabled: true,
    })
    const put = await t.app.inject({
      method: 'PUT',
      url: `/file/configuration/${view._id}/thumbnail`,
      headers: { ...headers, 'content-type': 'image/png' },
      payload: png,
    })
    if (put.statusCode !== 200) throw new Error(`thumbnail: ${put.statusCode}`)
  }
}

/** A route sending `bytes` as a zip: an HTTP round trip with nothing behind it. */
async function bareRoute(bytes: Uint8Array): Promise<{ url: string; close: () => Promise<void> }> {
  const app = Fastify()
  app.get('/', async (_request, reply) => reply.type('application/zip').send(Buffer.from(bytes)))
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  return { url: `${url}/`, close: () => app.close() }
}

async function timeExport(base: string, headers: Headers, fileId: string) {
  const times: number[] = []
  let bytes = new Uint8Array(0)
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now()
    const res = await fetch(`${base}/file/${fileId}/bcf`, { headers })
    bytes = new Uint8Array(await res.arrayBuffer())
    times.push(performance.now() - started)
  }
  const bare = await bareRoute(bytes)
  const floor: number[] = []
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now()
    await (await fetch(bare.url)).arrayBuffer()
    floor.push(performance.now() - started)
  }
  await bare.close()
  return { ms: median(times), floor: median(floor), bytes }
}

/**
 * The longest stall of the event loop while `work` runs, in ms: the largest gap between the ticks of a
 * 2 ms interval, less the interval.
 */
async function stallDuring<T>(work: () => Promise<T>): Promise<{ result: T; ms: number; stall: number }> {
  let last = performance.now()
  let stall = 0
  const ticker = setInterval(() => {
    const now = performance.now()
    stall = Math.max(stall, now - last - 2)
    last = now
  }, 2)
  const started = performance.now()
  // A turn first, so that work that blocks at once is measured from a tick.
  await new Promise((resolve) => setTimeout(resolve, 5))
  last = performance.now()
  const result = await work()
  const ms = performance.now() - started - 5
  await new Promise((resolve) => setTimeout(resolve, 10))
  clearInterval(ticker)
  return { result, ms, stall }
}

async function timeImport(t: TestApp, base: string, headers: Headers, zip: Uint8Array) {
  const times: number[] = []
  const stalls: number[] = []
  let report = ''
  for (let i = 0; i < Math.min(ROUNDS, 3); i++) {
    const target = await converted(t, headers, `house-import-${i}.ifc`)
    const run = await stallDuring(async () => {
      const res = await fetch(`${base}/file/${target.id}/bcf`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/zip' },
        body: zip,
      })
      return res.text()
    })
    times.push(run.ms)
    stalls.push(run.stall)
    report = run.result
  }
  const parse: number[] = []
  for (let i = 0; i < ROUNDS; i++) parse.push((await stallDuring(async () => readBcf(zip))).ms)
  return { ms: median(times), stall: median(stalls), parse: median(parse), report }
}

/** 8 topics, each a viewpoint hiding 60,000 components: 22 MB of XML, 1.2 MB zipped. */
function hostileZip(): Uint8Array {
  const components = Array.from(
    { length: 60_000 },
    (_, i) => `<Component IfcGuid="${String(i).padStart(22, 'A')}"/>`,
  )
  const viewpoint = `<?xml version="1.0"?><VisualizationInfo Guid="11111111-1111-4111-8111-111111111111"><Components><Visibility DefaultVisibility="true"><Exceptions>${components.join('\n')}</Exceptions></Visibility></Components></VisualizationInfo>`
  const files: Record<string, string> = { 'bcf.version': '<Version VersionId="3.0"/>' }
  for (let t = 0; t < 8; t++) {
    const guid = `22222222-2222-4222-8222-${String(t).padStart(12, '0')}`
    const point = `<ViewPoint Guid="11111111-1111-4111-8111-${String(t).padStart(12, '0')}"><Viewpoint>v.bcfv</Viewpoint></ViewPoint>`
    files[`${guid}/markup.bcf`] =
      `<Markup><Topic Guid="${guid}" TopicType="Issue" TopicStatus="Open"><Title>t</Title><CreationDate>2026-01-01T00:00:00Z</CreationDate><CreationAuthor>a</CreationAuthor><Viewpoints>${point}</Viewpoints></Topic></Markup>`
    files[`${guid}/v.bcfv`] = viewpoint
  }
  return zipFiles(files)
}

async function hostile(): Promise<ResultRow[]> {
  const zip = hostileZip()
  const inWorker = await stallDuring(() => readBcfInWorker(zip))
  const onMain = await stallDuring(async () => readBcf(zip))
  console.log(
    `hostile 22 MB of XML (${(zip.length / 1e6).toFixed(1)} MB zipped): worker ${inWorker.ms.toFixed(0)} ms, loop stall ${inWorker.stall.toFixed(0)} ms; main thread ${onMain.ms.toFixed(0)} ms, stall ${onMain.stall.toFixed(0)} ms`,
  )
  const at = { case: 'hostile 22 MB XML', baseline: 'the same read on the main thread' }
  return [
    { metric: 'read_ms', value: Math.round(inWorker.ms), unit: 'ms', ...at },
    {
      metric: 'loop_stall_ms',
      value: Math.round(inWorker.stall),
      unit: 'ms',
      ratio: Number((inWorker.stall / onMain.stall).toFixed(3)),
      ...at,
    },
  ]
}

async function benchDialect(dialect: ReturnType<typeof dialects>[number]): Promise<ResultRow[]> {
  const t = await startApp(dialect, { licenses: 1000 }, { conversions: true })
  try {
    const m = await team(t.app)
    const source = await converted(t, m.owner.headers, 'house.ifc')
    await shareFileRow(t.app, source.id, m.editor.account.id, 'editor')
    const seeded = performance.now()
    await seedAnnotations(t, m.owner.headers, source)
    await seedViews(t, m.owner.headers, source)
    console.log(`${dialect.name}: seeded in ${((performance.now() - seeded) / 1000).toFixed(1)} s`)
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' })
    const out = await timeExport(base, m.owner.headers, source.id)
    const into = await timeImport(t, base, m.owner.headers, out.bytes)
    console.log(
      `${dialect.name}: export ${out.ms.toFixed(0)} ms (${(out.bytes.length / 1e6).toFixed(2)} MB; bare route ${out.floor.toFixed(1)} ms); import ${into.ms.toFixed(0)} ms (reading alone ${into.parse.toFixed(0)} ms; loop stall ${into.stall.toFixed(0)} ms) ${into.report.slice(0, 120)}`,
    )
    const at = { dialect: dialect.name, case: `${ANNOTATIONS} annotations, ${VIEWS} views` }
    return [
      {
        metric: 'export_ms',
        value: Math.round(out.ms),
        unit: 'ms',
        ratio: Number((out.ms / out.floor).toFixed(1)),
        baseline: 'bare route, same bytes',
        ...at,
      },
      { metric: 'export_bytes', value: out.bytes.length, unit: 'B', ...at },
      {
        metric: 'import_ms',
        value: Math.round(into.ms),
        unit: 'ms',
        ratio: Number((into.ms / into.parse).toFixed(1)),
        baseline: 'reading the zip alone',
        ...at,
      },
      { metric: 'import_loop_stall_ms', value: Math.round(into.stall), unit: 'ms', ...at },
    ]
  } finally {
    await t.close()
  }
}

async function main(): Promise<void> {
  const rows: ResultRow[] = await hostile()
  for (const dialect of dialects().filter((d) => !args.dialect || d.name === args.dialect)) {
    rows.push(...(await benchDialect(dialect)))
  }
  record('bcf', rows)
}

await main()

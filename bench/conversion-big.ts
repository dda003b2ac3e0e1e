// Big-model benchmark (`npm run bench:conversion-big`): generated large models go through the whole
// product path — HTTP upload (sniffed), the in-process worker, the real conversion child with the
// default budget (TESSERA_CONVERSION_TIMEOUT 10m, TESSERA_CONVERSION_MAX_MEMORY 4GiB), the thumbnail
// — while an authenticated GET /file/:id runs in a loop against the same server.
//
//   npm run bench:conversion-big -- [--only stl-1m,stl-5m,gltf-50k-nodes,ifc-4k-elements]
//
// Per model: conversion time (the job, from claim to recorded outcome), peak RSS of the conversion
// process (VmHWM from /proc/<pid>/status, sampled, and maxRSS the child reports), output and
// thumbnail size, and the p99 of the GET meanwhile (target < 50 ms). Figures: docs/benchmarks.md.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { Document, NodeIO } from '@gltf-transform/core'
import { signedIn } from '../packages/server/test/support/api.ts'
import { terrainStl } from '../packages/server/test/support/big-models.ts'
import { multipart } from '../packages/server/test/support/files.ts'
import { dialects, LogCapture, startApp } from '../packages/server/test/support/harness.ts'
import { type ResultRow, record } from './results.ts'

const { values: args } = parseArgs({ options: { only: { type: 'string' } } })

interface BigModel {
  id: string
  name: string
  make(): Promise<Buffer>
}

const MODELS: BigModel[] = [
  { id: 'stl-1m', name: 'terrain-1m.stl', make: async () => terrainStl(1_000_000) },
  { id: 'stl-5m', name: 'terrain-5m.stl', make: async () => terrainStl(5_000_000) },
  { id: 'gltf-50k-nodes', name: 'parts-50k.glb', make: () => manyNodesGlb(50_000) },
  { id: 'ifc-4k-elements', name: 'estate.ifc', make: async () => houseEstateIfc(1000) },
]

/** A GLB of `count` named nodes on a grid, sharing 500 box meshes of different sizes. */
async function manyNodesGlb(count: number): Promise<Buffer> {
  const document = new Document()
  const buffer = document.createBuffer()
  const meshes = Array.from({ length: 500 }, (_, m) => {
    const [sx, sy, sz] = [0.2 + (m % 7) * 0.05, 0.2 + (m % 11) * 0.04, 0.2 + (m % 5) * 0.06]
    const corners = [0, 1, 2, 3, 4, 5, 6, 7].flatMap((c) => [c & 1 ? sx : 0, c & 2 ? sy : 0, c & 4 ? sz : 0])
    const faces = [
      0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4, 2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7,
      5,
    ]
    const position = document
      .createAccessor()
      .setType('VEC3')
      .setArray(new Float32Array(corners))
      .setBuffer(buffer)
    const indices = document
      .createAccessor()
      .setType('SCALAR')
      .setArray(new Uint16Array(faces))
      .setBuffer(buffer)
    const material = document.createMaterial(`m${m % 20}`).setBaseColorFactor([(m % 20) / 20, 0.5, 0.7, 1])
    const primitive = document.createPrimitive().setAttribute('POSITION', position).setIndices(indices)
    return document.createMesh(`box-${m}`).addPrimitive(primitive.setMaterial(material))
  })
  const scene = document.createScene('parts')
  const side = Math.ceil(Math.sqrt(count))
  for (let i = 0; i < count; i++) {
    const node = document.createNode(`part-${i}`).setMesh(meshes[i % meshes.length] ?? null)
    scene.addChild(node.setTranslation([(i % side) * 0.6, 0, Math.floor(i / side) * 0.6]))
  }
  return Buffer.from(await new NodeIO().writeBinary(document))
}

/** The fixture house's elements (2 walls, a slab, a glass pane) repeated `houses` times on a grid. */
function houseEstateIfc(houses: number): Buffer {
  const fixture = readFileSync(
    new URL('../packages/server/test/fixtures/conversion/small-house.ifc', import.meta.url),
    'utf8',
  )
  const lines = fixture.split('\n')
  const id = (line: string) => Number(/^#(\d+)=/.exec(line)?.[1] ?? -1)
  const head = lines.filter((line) => id(line) >= 0 && id(line) < 60)
  const elementLines = lines.filter((line) => id(line) >= 60 && id(line) < 130)
  const side = Math.ceil(Math.sqrt(houses))
  const contained: string[] = []
  const body: string[] = []
  const GUID = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$'
  for (let k = 1; k <= houses; k++) {
    const base = k * 1000
    const [x, y] = [(k % side) * 9, Math.floor(k / side) * 7]
    body.push(`#${base + 1}=IFCCARTESIANPOINT((${x}.,${y}.,0.));`)
    body.push(`#${base + 2}=IFCAXIS2PLACEMENT3D(#${base + 1},$,$);`)
    body.push(`#${base + 3}=IFCLOCALPLACEMENT(#44,#${base + 2});`)
    let element = 0
    for (const line of elementLines) {
      let copy = line.replace(/#(\d+)/g, (_, n: string) =>
        Number(n) >= 60 ? `#${Number(n) + base}` : `#${n}`,
      )
      copy = copy.replace('IFCLOCALPLACEMENT(#44,', `IFCLOCALPLACEMENT(#${base + 3},`)
      copy = copy.replace(/^(#\d+=IFC(?:WALL|SLAB|BUILDINGELEMENTPROXY)\(')[^']{22}'/, (_, start: string) => {
        const n = k * 8 + element++
        const tail = Array.from({ length: 6 }, (_, d) => GUID[Math.floor(n / 64 ** d) % 64]).join('')
        return `${start}3Tessera0Estate0${tail}'`
      })
      if (/=IFC(WALL|SLAB|BUILDINGELEMENTPROXY)\(/.test(copy)) contained.push(`#${id(copy)}`)
      body.push(copy)
    }
  }
  const relation = `#999=IFCRELCONTAINEDINSPATIALSTRUCTURE('3Hp6n_0Rz2Ov6Q9sFqv1Bd',$,$,$,(${contained.join(',')}),#45);`
  const header = lines.slice(0, lines.indexOf('DATA;') + 1)
  return Buffer.from([...header, ...head, ...body, relation, 'ENDSEC;', 'END-ISO-10303-21;', ''].join('\n'))
}

/** Peak resident set (VmHWM, KiB) of this process's conversion children, by PID. */
function childPeaks(peaks: Map<number, number>): void {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
  for (const line of out.split('\n').filter((l) => /conversion[/\\]child\.(ts|js)/.test(l))) {
    const pid = Number.parseInt(line.trim(), 10)
    try {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
      if (hwm) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, Number(hwm)))
    } catch {
      // exited between ps and the read
    }
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)

async function main(): Promise<void> {
  const [sqlite] = dialects()
  if (!sqlite) throw new Error('no SQLite dialect')
  const logs = new LogCapture()
  const t = await startApp(sqlite, {}, { logStream: logs, conversions: true })
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' })
  const user = await signedIn(t.app, 'bench')
  const only = args.only?.split(',')
  const rows: string[] = []
  const figures: ResultRow[] = []
  try {
    for (const model of MODELS.filter((m) => !only || only.includes(m.id))) {
      const one = await benchOne(t, base, user.headers, model, logs)
      rows.push(one.line)
      figures.push(...one.figures)
      console.log(one.line)
    }
  } finally {
    await t.close()
  }
  console.log(
    '\n| model | input | triangles | job time | s / M triangles | peak RSS (VmHWM / maxRSS) | output | thumbnail | GET p99 (n) | result |',
  )
  console.log('|---|---|---|---|---|---|---|---|---|---|')
  for (const row of rows) console.log(row)
  record('conversion-big', figures)
}

async function benchOne(
  t: Awaited<ReturnType<typeof startApp>>,
  base: string,
  headers: Record<string, string>,
  model: BigModel,
  logs: LogCapture,
): Promise<{ line: string; figures: ResultRow[] }> {
  const data = await model.make()
  const form = multipart([{ name: 'file', filename: model.name, data }])
  const uploaded = await fetch(`${base}/file/upload/`, {
    method: 'POST',
    headers: { ...headers, 'content-type': form.contentType },
    body: form.body,
  })
  if (uploaded.status !== 200)
    throw new Error(`${model.id}: upload ${uploaded.status} ${await uploaded.text()}`)
  const { file } = (await uploaded.json()) as { file: { _id: string } }
  const latencies: number[] = []
  const peaks = new Map<number, number>()
  let lastPeek = 0
  for (;;) {
    const started = performance.now()
    const res = await fetch(`${base}/file/${file._id}`, { headers })
    const { file: record } = (await res.json()) as { file: { state: string } }
    latencies.push(performance.now() - started)
    if (record.state === 'ready' || record.state === 'error') break
    if (Date.now() - lastPeek > 200) {
      childPeaks(peaks)
      lastPeek = Date.now()
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const row = await t.db.kysely
    .selectFrom('files')
    .select(['state', 'error', 'optimized_size', 'thumbnail_size'])
    .where('id', '=', file._id)
    .executeTakeFirstOrThrow()
  const finished = logs.lines
    .map(
      (line) =>
        JSON.parse(line) as {
          msg?: string
          fileId?: string
          ms?: number
          triangles?: number
          maxRssKb?: number
        },
    )
    .find((line) => line.msg === 'conversion finished' && line.fileId === file._id)
  latencies.sort((a, b) => a - b)
  const seconds = (finished?.ms ?? 0) / 1000
  const triangles = finished?.triangles ?? 0
  const hwm = Math.max(0, ...peaks.values())
  const perMillion = triangles > 0 ? (seconds / (triangles / 1e6)).toFixed(1) : '—'
  const result = row.state === 'ready' ? 'ready' : `error: ${row.error}`
  const at = { case: model.id, inputMB: Number(mb(data.length)), trianglesOut: triangles, result }
  const figures: ResultRow[] = [
    { metric: 'job_time', value: Number(seconds.toFixed(1)), unit: 's', ...at },
    {
      metric: 'peak_rss',
      value: Number(mb(hwm * 1024)),
      unit: 'MB',
      maxRssMB: Number(mb((finished?.maxRssKb ?? 0) * 1024)),
      ...at,
    },
    { metric: 'output_size', value: Number(mb(row.optimized_size)), unit: 'MB', ...at },
    { metric: 'thumbnail_size', value: Number((row.thumbnail_size / 1024).toFixed(1)), unit: 'KB', ...at },
    {
      metric: 'api_get_p99',
      value: Number(percentile(latencies, 0.99).toFixed(1)),
      unit: 'ms',
      samples: latencies.length,
      target: 50,
      ...at,
    },
  ]
  const line = `| ${model.id} | ${mb(data.length)} MB | ${triangles.toLocaleString('en')} | ${seconds.toFixed(1)} s | ${perMillion} | ${mb(hwm * 1024)} / ${mb((finished?.maxRssKb ?? 0) * 1024)} MB | ${mb(row.optimized_size)} MB | ${(row.thumbnail_size / 1024).toFixed(1)} KB | ${percentile(latencies, 0.99).toFixed(1)} ms (${latencies.length}) | ${result} |`
  return { line, figures }
}

await main()

// bench:properties --convert: a generated IFC of N walls with property sets through the conversion
// child (as the worker runs it), with and without property extraction (an older checkout's child),
// then the extracted properties stored on every dialect as the worker stores them.
import { fork } from 'node:child_process'
import { createReadStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import {
  type NodePropertiesInput,
  propertyGeneration,
  publishSceneProperties,
  stageSceneProperties,
} from '../../packages/server/src/modules/scene/index.ts'
import { signedIn } from '../../packages/server/test/support/api.ts'
import { insertFileRow } from '../../packages/server/test/support/file-rows.ts'
import { dialects, startApp } from '../../packages/server/test/support/harness.ts'
import { type ResultRow, record } from '../results.ts'
import { wallsIfc } from './ifc-walls.ts'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const { values: args } = parseArgs({ strict: false, options: { before: { type: 'string' } } })

interface Run {
  ms: number
  maxRssMb: number
  outcome: string
}

/** One conversion in `root`'s child process, timed from fork to its answer. */
function convertIn(root: string, dir: string): Promise<Run> {
  const child = fork(path.join(root, 'packages/server/src/modules/conversion/child.ts'), [], {
    execArgv: ['--max-old-space-size=4096'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  })
  const started = performance.now()
  return new Promise((resolve, reject) => {
    child.on('message', (message: { type: string; maxRssKb?: number; reason?: string; detail?: string }) => {
      if (message.type === 'progress') return
      const ms = performance.now() - started
      resolve({ ms, maxRssMb: Math.round((message.maxRssKb ?? 0) / 1024), outcome: message.type })
    })
    child.once('error', reject)
    child.send({
      inputPath: path.join(dir, 'walls.ifc'),
      name: 'walls.ifc',
      outputPath: path.join(dir, 'out.glb'),
      thumbnailPath: path.join(dir, 'thumb.png'),
      propertiesPath: path.join(dir, 'properties.ndjson'),
    })
  })
}

async function* lines(file: string): AsyncGenerator<NodePropertiesInput> {
  const input = createInterface({
    input: createReadStream(file, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  })
  for await (const line of input) if (line) yield JSON.parse(line) as NodePropertiesInput
}

/** Stores the extracted properties on each dialect as the worker does: staged, then published. */
async function store(file: string): Promise<ResultRow[]> {
  const rows: ResultRow[] = []
  for (const dialect of dialects()) {
    const t = await startApp(dialect, { licenses: 10 })
    try {
      const user = await signedIn(t.app, 'bench')
      const fileId = await insertFileRow({ ctx: { db: t.db } }, user.account.id, { name: 'walls.ifc' })
      const set = { fileId, generation: propertyGeneration(1, 1) }
      const started = performance.now()
      const counts = await stageSceneProperties(t.db, set, lines(file))
      await t.db.kysely.transaction().execute((tx) => publishSceneProperties(tx, set, counts))
      const ms = performance.now() - started
      console.log(
        `${dialect.name}: stored ${counts.properties.toLocaleString()} properties in ${(ms / 1000).toFixed(1)} s`,
      )
      rows.push({ metric: 'convert_store_time', value: Math.round(ms), unit: 'ms', dialect: dialect.name })
    } finally {
      await t.close()
    }
  }
  return rows
}

export async function convertBench(walls: number): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-props-'))
  try {
    writeFileSync(path.join(dir, 'walls.ifc'), wallsIfc(walls))
    const inputMb = statSync(path.join(dir, 'walls.ifc')).size / 1e6
    console.log(`walls.ifc: ${walls.toLocaleString()} walls, ${inputMb.toFixed(1)} MB`)
    const roots = [{ name: 'with extraction', root: ROOT }]
    if (typeof args.before === 'string') roots.push({ name: 'before', root: path.resolve(args.before) })
    const rows: ResultRow[] = []
    for (let round = 1; round <= 2; round++) {
      for (const { name, root } of roots) {
        const run = await convertIn(root, dir)
        console.log(
          `round ${round}, ${name}: ${run.outcome} in ${(run.ms / 1000).toFixed(1)} s, peak RSS ${run.maxRssMb} MB`,
        )
        rows.push({ metric: 'convert_time', value: Math.round(run.ms), unit: 'ms', case: name, walls })
        rows.push({ metric: 'convert_peak_rss', value: run.maxRssMb, unit: 'MB', case: name, walls })
      }
    }
    const ndjson = path.join(dir, 'properties.ndjson')
    console.log(
      `properties handed to the worker: ${(statSync(ndjson).size / 1e6).toFixed(1)} MB of JSON lines`,
    )
    rows.push(...(await store(ndjson)))
    record('properties', rows)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

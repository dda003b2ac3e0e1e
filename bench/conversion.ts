// Conversion benchmark (`npm run bench:conversion`): every corpus model through convertModel, and
// every GLB input also through `gltf-transform optimize --compress meshopt --join false --flatten
// false` (the @gltf-transform/cli devDependency), the reference our optimization must match.
//
// Both sides are timed the same way, the way production runs a conversion: a fresh child process
// doing one conversion from file to file (ours: `node bench/conversion-entry.ts`; the
// CLI: `node …/cli.js optimize`). Each is run --runs times, interleaved, and the median wall time
// is reported, so a noisy neighbour on the machine hits both alike.
//
//   npm run bench:conversion -- [--runs 5] [--only name,name] [--check]
//
// Targets for GLB inputs: output size <= 1.0x the CLI's AND <= 1.0x the input's ("never bigger"),
// time <= 1.5x the CLI's. --check exits non-zero when one is missed. Size targets are judged on our
// output less its `tesseraId` node extras (about 41 bytes a node, which neither the input nor the
// CLI's output has); raw and adjusted ratios are printed, and the worst of each.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { CORPUS } from '../packages/server/test/support/conversion-corpus.ts'
import { type ResultRow, record } from './results.ts'

const SIZE_TARGET = 1.0
const TIME_TARGET = 1.5

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    only: { type: 'string' },
    check: { type: 'boolean', default: false },
  },
})
const runs = Number(args.runs)
if (!Number.isInteger(runs) || runs < 1)
  throw new Error(`--runs must be a positive integer, not "${args.runs}"`)

const here = path.dirname(fileURLToPath(import.meta.url))
const entry = path.join(here, 'conversion-entry.ts')
// The package exports only its module entry (dist/cli.mjs); its bin sits beside dist/.
const cliBin = path.join(
  path.dirname(fileURLToPath(import.meta.resolve('@gltf-transform/cli'))),
  '../bin/cli.js',
)

interface Timed {
  ms: number
  stdout: string
}

/** Runs a command to completion; rejects with its stderr when it fails. */
function run(command: string, commandArgs: string[]): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.on('error', reject)
    child.on('close', (code) => {
      const ms = performance.now() - started
      if (code === 0) resolve({ ms, stdout })
      else
        reject(
          new Error(`${path.basename(commandArgs.at(-3) ?? command)} exited ${code}: ${stderr.slice(-2000)}`),
        )
    })
  })
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

interface Row {
  name: string
  source: string
  inputBytes: number
  outputBytes: number
  /** outputBytes less the `tesseraId` node extras, which the CLI's output has no counterpart of. */
  outputBytesWithoutIds: number
  triangles: number
  ms: number
  /** The final encoding convertModel chose (stats.encoding.chosen). */
  encoding: string
  cli?: { outputBytes: number; ms: number }
}

async function benchModel(dir: string, name: string, source: string, bytes: Uint8Array): Promise<Row> {
  const inputPath = path.join(dir, name)
  writeFileSync(inputPath, bytes)
  const ourOutput = path.join(dir, `${name}.ours.glb`)
  const cliOutput = path.join(dir, `${name}.cli.glb`)
  const isGlb = name.toLowerCase().endsWith('.glb')
  const ourTimes: number[] = []
  const cliTimes: number[] = []
  let stats = { outputBytes: 0, triangles: 0, encoding: { chosen: '' } }
  for (let i = 0; i < runs; i++) {
    const ours = await run(process.execPath, [entry, inputPath, ourOutput])
    ourTimes.push(ours.ms)
    stats = JSON.parse(ours.stdout.trim().split('\n').at(-1) ?? '{}') as typeof stats
    if (isGlb) {
      const cliArgs = ['--compress', 'meshopt', '--join', 'false', '--flatten', 'false']
      const cli = await run(process.execPath, [cliBin, 'optimize', inputPath, cliOutput, ...cliArgs])
      cliTimes.push(cli.ms)
    }
  }
  return {
    name,
    source,
    inputBytes: bytes.byteLength,
    outputBytes: stats.outputBytes,
    outputBytesWithoutIds: glbBytesWithoutIds(readFileSync(ourOutput)),
    triangles: stats.triangles,
    encoding: stats.encoding.chosen,
    ms: median(ourTimes),
    cli: isGlb ? { outputBytes: statSync(cliOutput).size, ms: median(cliTimes) } : undefined,
  }
}

/** The GLB's size once the `tesseraId` extras are removed from its nodes (JSON chunk re-padded). */
function glbBytesWithoutIds(glb: Buffer): number {
  const jsonLength = glb.readUInt32LE(12)
  const json = JSON.parse(glb.subarray(20, 20 + jsonLength).toString()) as {
    nodes?: Array<{ extras?: Record<string, unknown> }>
  }
  for (const node of json.nodes ?? []) {
    if (!node.extras) continue
    delete node.extras.tesseraId
    if (Object.keys(node.extras).length === 0) delete node.extras
  }
  const strippedLength = Math.ceil(Buffer.byteLength(JSON.stringify(json)) / 4) * 4
  return glb.byteLength - jsonLength + strippedLength
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(2)} MiB`
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${bytes} B`
}

function table(rows: Row[]): string {
  const header = [
    'model',
    'source',
    'input',
    'output',
    'triangles',
    'encoding',
    'time ms',
    'CLI output',
    '× CLI',
    '× CLI w/o IDs',
    '× input w/o IDs',
    'CLI ms',
    'time ×',
  ]
  const lines = rows.map((row) => [
    row.name,
    row.source,
    formatBytes(row.inputBytes),
    formatBytes(row.outputBytes),
    String(row.triangles),
    row.encoding,
    row.ms.toFixed(0),
    row.cli ? formatBytes(row.cli.outputBytes) : '',
    row.cli ? (row.outputBytes / row.cli.outputBytes).toFixed(3) : '',
    row.cli ? (row.outputBytesWithoutIds / row.cli.outputBytes).toFixed(3) : '',
    row.cli ? (row.outputBytesWithoutIds / row.inputBytes).toFixed(3) : '',
    row.cli ? row.cli.ms.toFixed(0) : '',
    row.cli ? (row.ms / row.cli.ms).toFixed(2) : '',
  ])
  const markdown = [header, header.map(() => '---'), ...lines].map((cells) => `| ${cells.join(' | ')} |`)
  return markdown.join('\n')
}

/** The larger of output/input and output/CLI output, for a GLB input. */
function sizeRatio(row: Row, outputBytes: number): number {
  return row.cli ? Math.max(outputBytes / row.inputBytes, outputBytes / row.cli.outputBytes) : 0
}

function worstRatios(rows: Row[]): string {
  const glbRows = rows.filter((row) => row.cli)
  if (glbRows.length === 0) return 'no GLB input'
  const worst = (bytes: (row: Row) => number): string => {
    const row = glbRows.reduce((a, b) => (sizeRatio(b, bytes(b)) > sizeRatio(a, bytes(a)) ? b : a))
    return `${sizeRatio(row, bytes(row)).toFixed(3)} (${row.name})`
  }
  return [
    `worst size ratio of a GLB input, max(output/input, output/CLI): ${worst((row) => row.outputBytesWithoutIds)}`,
    `without IDs; raw (with the tesseraId extras): ${worst((row) => row.outputBytes)}`,
  ].join(', ')
}

/** The table's figures as history rows (bench/results.ts); ratios against the CLI for GLB inputs. */
function resultRows(rows: Row[]): ResultRow[] {
  const cli = 'gltf-transform optimize CLI'
  return rows.flatMap((row) => {
    const at = { case: row.name, modelSource: row.source, encoding: row.encoding, runs }
    const time: ResultRow = { metric: 'time', value: Math.round(row.ms), unit: 'ms', ...at }
    const size: ResultRow = {
      metric: 'output_size',
      value: row.outputBytes,
      unit: 'bytes',
      inputBytes: row.inputBytes,
      trianglesOut: row.triangles,
      ...at,
    }
    if (row.cli) {
      Object.assign(time, {
        baseline: cli,
        baselineValue: Math.round(row.cli.ms),
        ratio: Number((row.ms / row.cli.ms).toFixed(2)),
        target: TIME_TARGET,
      })
      Object.assign(size, {
        baseline: cli,
        baselineValue: row.cli.outputBytes,
        ratio: Number((row.outputBytes / row.cli.outputBytes).toFixed(3)),
        ratioWithoutIds: Number((row.outputBytesWithoutIds / row.cli.outputBytes).toFixed(3)),
        ratioToInputWithoutIds: Number((row.outputBytesWithoutIds / row.inputBytes).toFixed(3)),
        target: SIZE_TARGET,
      })
    }
    return [time, size]
  })
}

async function main(): Promise<void> {
  const only = args.only ? new Set(args.only.split(',')) : undefined
  const models = CORPUS.filter((model) => !only || only.has(model.name))
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-bench-conversion-'))
  const rows: Row[] = []
  try {
    for (const model of models) {
      const row = await benchModel(dir, model.name, model.source, await model.load())
      rows.push(row)
      console.error(
        `${model.name}: ${row.ms.toFixed(0)} ms${row.cli ? `, CLI ${row.cli.ms.toFixed(0)} ms` : ''}`,
      )
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  console.log(`\nConversion bench, median of ${runs} run(s) per model, one child process per conversion.\n`)
  console.log(table(rows))

  console.log(`\n${worstRatios(rows)}`)
  const missed = rows.filter(
    (row) =>
      row.cli &&
      (sizeRatio(row, row.outputBytesWithoutIds) > SIZE_TARGET || row.ms > row.cli.ms * TIME_TARGET),
  )
  const targets = `size <= ${SIZE_TARGET}x of the input and of the CLI, time <= ${TIME_TARGET}x of the CLI`
  const verdict = missed.length
    ? `targets missed (${targets}): ${missed.map((row) => row.name).join(', ')}`
    : `all GLB inputs within targets (${targets})`
  console.log(verdict)
  record('conversion', resultRows(rows))
  if (args.check && missed.length) process.exitCode = 1
}

await main()

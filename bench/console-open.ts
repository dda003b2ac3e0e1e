// First viewer open benchmark (`npm run bench:console-open`): what a browser with a cold cache
// downloads, and how long it takes until the model is drawn, when it opens `/view/<id>` of a model
// on a slow link. One server per variant runs side by side: `worktree` is this tree as it is, any
// other variant a git ref (default main: the code before a change) copied to a temp directory with
// its own console build; runs alternate between them. Each run is a fresh Chromium context (empty cache), signed in through the API (cookies, not
// measured), then throttled with CDP Network.emulateNetworkConditions (download and upload at
// `--rate` bytes/s, `--latency` ms per request) before it navigates. It reports, per variant and
// rate, the medians of: bytes received (Network.loadingFinished encodedDataLength: headers
// included) for HTML, JS, CSS, wasm, the model (GLB) and the rest (API JSON, icon); the time from
// navigation start until the last script and the model have arrived (the network's share); and the
// time to the first frame that shows the model (over 2 % of the canvas differs from the
// background, as the console tests check; polled every 100 ms; this one adds parsing, decoding and
// software rendering, so it follows the machine's load). Chromium draws with
// software WebGL (SwiftShader). Each run is also appended to bench/results/console-open.jsonl.
//
//   npm run bench:console-open -- [--runs 3] [--rates 125000,100000] [--latency 40]
//     [--variants main,worktree] [--timeline]
//
// TESSERA_BENCH_RECORD=1 appends each run's figures to bench/results/console-open.jsonl, one row
// per figure ({bench, metric, value, unit, date, host, node, load, commit, command, variant, …}),
// the rows bench/results.ts writes on main; without it nothing is written.
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import os from 'node:os'
import { parseArgs } from 'node:util'
import { Tessera } from '@tessera/client'
import { type Browser, type BrowserContext, type CDPSession, chromium } from 'playwright-core'
import { benchModel, ROOT, type Served, serve, treeAt } from './peers/console-open-setup.ts'
import { paintedAt } from './peers/painted-at.ts'
import { record } from './results.ts'

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    rates: { type: 'string', default: '125000,100000' },
    latency: { type: 'string', default: '40' },
    variants: { type: 'string', default: 'main,worktree' },
    timeline: { type: 'boolean', default: false },
  },
})
const CATEGORIES = ['html', 'js', 'css', 'wasm', 'model', 'other'] as const
type Category = (typeof CATEGORIES)[number]
type Bytes = Record<Category | 'total', number>

interface Variant {
  name: string
  served: Served
  fileId: string
  cleanup: () => void
}

function categorize(url: string, type: string): Category {
  const pathname = new URL(url).pathname
  if (type === 'Document') return 'html'
  if (/\/file\/[^/]+\/optimized$/.test(pathname)) return 'model'
  if (/\.m?js$/.test(pathname)) return 'js'
  if (pathname.endsWith('.css')) return 'css'
  if (pathname.endsWith('.wasm')) return 'wasm'
  return 'other'
}

async function upload(served: Served, model: Uint8Array): Promise<string> {
  const tessera = await Tessera.connect({
    url: served.baseUrl,
    username: 'admin',
    password: served.adminPassword,
    keepAlive: false,
  })
  try {
    const file = await tessera.files.upload(new Blob([model]), { name: 'machine.glb' })
    await tessera.files.waitUntilReady(file._id, { timeoutMs: 600_000 })
    return file._id
  } finally {
    await tessera.logout()
  }
}

async function startVariant(name: string, model: Uint8Array): Promise<Variant> {
  const root = name === 'worktree' ? ROOT : treeAt(name)
  const served = await serve(root)
  const fileId = await upload(served, model)
  const cleanup = () => {
    if (root !== ROOT) rmSync(root, { recursive: true, force: true })
  }
  return { name, served, fileId, cleanup }
}

/**
 * Counts what arrives, by category, and when the last script or model byte arrived (seconds after
 * the first request: the document's).
 */
function watchNetwork(cdp: CDPSession) {
  const kinds = new Map<string, Category>()
  const started = new Map<string, number>()
  const bytes = Object.fromEntries([...CATEGORIES, 'total'].map((c) => [c, 0])) as Bytes
  let first = Number.NaN
  let lastHeavy = Number.NaN
  cdp.on('Network.requestWillBeSent', (e) => {
    if (Number.isNaN(first)) first = e.timestamp
    started.set(e.requestId, e.timestamp)
  })
  cdp.on('Network.responseReceived', (e) => kinds.set(e.requestId, categorize(e.response.url, e.type)))
  cdp.on('Network.loadingFinished', (e) => {
    const kind = kinds.get(e.requestId) ?? 'other'
    bytes[kind] += e.encodedDataLength
    bytes.total += e.encodedDataLength
    if (kind === 'js' || kind === 'model')
      lastHeavy = Math.max(e.timestamp, Number.isNaN(lastHeavy) ? 0 : lastHeavy)
    // --timeline: when each request started and ended (s after the first), to see where time goes.
    if (args.timeline) {
      const from = ((started.get(e.requestId) ?? first) - first).toFixed(2)
      console.log(
        `  ${kind.padEnd(6)} ${from} -> ${(e.timestamp - first).toFixed(2)} s ${e.encodedDataLength} B`,
      )
    }
  })
  return { bytes, downloadedMs: () => Math.round((lastHeavy - first) * 1000) }
}

async function signIn(context: BrowserContext, served: Served): Promise<void> {
  const { baseUrl, adminPassword } = served
  const login = await context.request.post(`${baseUrl}/account/login/`, {
    data: { username: 'admin', password: adminPassword, cookie: true },
    headers: { origin: baseUrl },
  })
  if (!login.ok()) throw new Error(`login: ${login.status()} ${await login.text()}`)
  // The session (license) cookie too, as the console's sign-in takes it: the page then resumes.
  const session = await context.request.post(`${baseUrl}/account/session`, { headers: { origin: baseUrl } })
  if (!session.ok()) throw new Error(`session: ${session.status()} ${await session.text()}`)
}

/** One cold open of the viewer: bytes by category, and when it was downloaded and painted (ms). */
async function openOnce(browser: Browser, variant: Variant, rate: number, latency: number) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  try {
    await signIn(context, variant.served)
    const page = await context.newPage()
    const cdp = await context.newCDPSession(page)
    await cdp.send('Network.enable')
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency,
      downloadThroughput: rate,
      uploadThroughput: rate,
    })
    const network = watchNetwork(cdp)
    await page.goto(`${variant.served.baseUrl}/view/${variant.fileId}`, { waitUntil: 'commit' })
    const painted = await page.waitForFunction(paintedAt, undefined, { polling: 100, timeout: 300_000 })
    const paintedMs = Math.round(Number(await painted.jsonValue()))
    await cdp.detach()
    return { bytes: network.bytes, downloadedMs: network.downloadedMs(), paintedMs }
  } finally {
    await context.close()
  }
}

/** Chromium as the console tests launch it (test/support/browser.ts): headless, software WebGL. */
function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-sandbox'],
  })
}

/** The commit a variant ran (a worktree with uncommitted changes says so). */
function commitOf(name: string): string {
  const ref = name === 'worktree' ? 'HEAD' : name
  const commit = execFileSync('git', ['rev-parse', '--short', ref], { cwd: ROOT }).toString().trim()
  const dirty =
    name === 'worktree' && execFileSync('git', ['status', '--porcelain'], { cwd: ROOT }).length > 0
  return dirty ? `${commit}+changes` : commit
}

interface RunRecord {
  load: string
  browser: string
  variant: string
  variantCommit: string
  run: number
  rate: number
  latencyMs: number
  modelUploadBytes: number
  bytes: Bytes
  downloadedMs: number
  paintedMs: number
}

/** One run's figures as history rows (bench/results.ts: only with TESSERA_BENCH_RECORD=1). */
function recordRun({ bytes, downloadedMs, paintedMs, ...at }: RunRecord): void {
  const figures = [
    { metric: 'downloaded', value: downloadedMs, unit: 'ms' },
    { metric: 'painted', value: paintedMs, unit: 'ms' },
    ...[...CATEGORIES, 'total' as const].map((c) => ({ metric: `bytes_${c}`, value: bytes[c], unit: 'B' })),
  ]
  record(
    'console-open',
    figures.map((f) => ({ ...f, ...at })),
  )
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

interface Row {
  variant: string
  rate: number
  bytes: Bytes
  downloadedMs: number
  paintedMs: number
}

function seconds(rows: Row[], pick: (r: Row) => number): string {
  const all = rows.map((r) => (pick(r) / 1000).toFixed(1)).join(', ')
  return `**${(median(rows.map(pick)) / 1000).toFixed(1)}** (${all})`
}

function report(rows: Row[]): void {
  const kb = (n: number) => (n / 1024).toFixed(1)
  console.log(
    `\n| variant | rate B/s | ${CATEGORIES.join(' KB | ')} KB | total KB | downloaded s | painted s |`,
  )
  console.log(`|---|---:|${CATEGORIES.map(() => '---:|').join('')}---:|---|---|`)
  const groups = new Map<string, Row[]>()
  for (const row of rows) {
    const key = `${row.variant} ${row.rate}`
    groups.set(key, [...(groups.get(key) ?? []), row])
  }
  for (const group of groups.values()) {
    const first = group[0] as Row
    const cells = [...CATEGORIES, 'total' as const].map((c) => kb(median(group.map((r) => r.bytes[c]))))
    const times = [seconds(group, (r) => r.downloadedMs), seconds(group, (r) => r.paintedMs)]
    console.log(`| ${first.variant} | ${first.rate} | ${cells.join(' | ')} | ${times.join(' | ')} |`)
  }
}

async function main(): Promise<void> {
  const rates = args.rates.split(',').map(Number)
  const latency = Number(args.latency)
  const model = await benchModel()
  console.log(`model: ${(model.byteLength / 1024 / 1024).toFixed(2)} MB GLB`)
  const variants: Variant[] = []
  const browser = await launch()
  try {
    for (const name of args.variants.split(',')) variants.push(await startVariant(name, model))
    const rows: Row[] = []
    for (let run = 1; run <= Number(args.runs); run++)
      for (const rate of rates)
        for (const variant of variants) {
          const figures = await openOnce(browser, variant, rate, latency)
          rows.push({ variant: variant.name, rate, ...figures })
          console.log(
            `run ${run} ${variant.name} ${rate} B/s: ${figures.bytes.total} B, downloaded ${figures.downloadedMs} ms, painted ${figures.paintedMs} ms`,
          )
          recordRun({
            load: `1 min ${(os.loadavg()[0] ?? 0).toFixed(2)} at the run's end`,
            browser: `Chromium ${browser.version()} headless, SwiftShader`,
            variant: variant.name,
            variantCommit: commitOf(variant.name),
            run,
            rate,
            latencyMs: latency,
            modelUploadBytes: model.byteLength,
            ...figures,
          })
        }
    report(rows)
  } finally {
    await browser.close()
    for (const variant of variants) {
      await variant.served.stop()
      variant.cleanup()
    }
  }
}

await main()

// The viewer on big models in Chromium (`npm run bench:viewer`): a `tessera serve` of this tree
// converts a 50,000-part GLB and a 5 M-triangle STL, then a fresh browser context opens each
// (software WebGL: SwiftShader, no GPU) and measures, in the page (performance.now(), from the
// navigation's start): the first frame that shows the model (over 2 % of the canvas differs from
// the background; a model of many parts shows its preview first, which counts), when the tree
// answers (its first row drawn and a click on it selected), the bounds trees' build, pick latency
// over 200 picks spread on the canvas with the BVH and with the plain three.js raycast (the
// baseline, same picks), the draw calls once the model is built against the distinct geometry +
// material pairs (instancing draws a call per pair), where the first frame's time went (the
// console's performance marks), and the JS heap (CDP Runtime.getHeapUsage). A 100,000-node tree
// (100 storeys of 999 elements, served in place of the STL's own) is then opened storey by storey,
// scrolled and closed (p95 each).
//
//   npm run bench:viewer -- [--quick]
//
// --quick: 5,000 parts, 500,000 triangles, a 10,000-node tree (a smoke run; the figures reported
// use the full sizes). TESSERA_BENCH_RECORD=1 appends the figures to bench/results/viewer.jsonl.
import os from 'node:os'
import { parseArgs } from 'node:util'
import { Tessera } from '@tessera/client'
import { type Browser, chromium, type Page } from 'playwright-core'
import {
  bvhBuilt,
  countNodes,
  percentile,
  serveTree,
  syntheticTree,
  timePicks,
  timeScroll,
  timeToggles,
} from '../packages/console/test/support/big-viewer.ts'
import { terrainStl } from '../packages/server/test/support/big-models.ts'
import { ROOT, type Served, serve } from './peers/console-open-setup.ts'
import { paintedAt } from './peers/painted-at.ts'
import { partsGlb } from './peers/viewer-models.ts'
import { type ResultRow, record } from './results.ts'

const { values: args } = parseArgs({ options: { quick: { type: 'boolean', default: false } } })
const SIZES = args.quick
  ? { parts: 5_000, triangles: 500_000, storeys: 10, perStorey: 999 }
  : { parts: 50_000, triangles: 5_000_000, storeys: 100, perStorey: 999 }
const PICKS = 200

interface Figure {
  model: string
  metric: string
  value: number
  unit: string
  target?: string
}

async function upload(served: Served, files: { name: string; bytes: Uint8Array }[]): Promise<string[]> {
  const tessera = await Tessera.connect({
    url: served.baseUrl,
    username: 'admin',
    password: served.adminPassword,
    keepAlive: false,
  })
  try {
    const ids: string[] = []
    for (const f of files) {
      const started = Date.now()
      const file = await tessera.files.upload(new Blob([new Uint8Array(f.bytes)]), { name: f.name })
      const ready = await tessera.files.waitUntilReady(file._id, { timeoutMs: 600_000 })
      if (ready.state !== 'ready') throw new Error(`${f.name}: ${ready.state} ${ready.error ?? ''}`)
      console.log(`${f.name}: uploaded and converted in ${((Date.now() - started) / 1000).toFixed(1)} s`)
      ids.push(file._id)
    }
    return ids
  } finally {
    await tessera.logout()
  }
}

async function openSignedIn(browser: Browser, served: Served): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  const { baseUrl, adminPassword } = served
  const login = await context.request.post(`${baseUrl}/account/login/`, {
    data: { username: 'admin', password: adminPassword, cookie: true },
    headers: { origin: baseUrl },
  })
  if (!login.ok()) throw new Error(`login: ${login.status()}`)
  await context.request.post(`${baseUrl}/account/session`, { headers: { origin: baseUrl } })
  return context.newPage()
}

async function heapMb(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('HeapProfiler.collectGarbage')
  const { usedSize } = await cdp.send('Runtime.getHeapUsage')
  await cdp.detach()
  return usedSize / 2 ** 20
}

/** One model opened cold: first frame, tree, BVH, picks (BVH and plain), draw calls, heap. */
async function measureModel(browser: Browser, served: Served, id: string, model: string): Promise<Figure[]> {
  const page = await openSignedIn(browser, served)
  try {
    await page.goto(`${served.baseUrl}/view/${id}`, { waitUntil: 'commit' })
    const painted = await page.waitForFunction(paintedAt, undefined, { polling: 50, timeout: 300_000 })
    const firstFrame = Number(await painted.jsonValue())
    // A model previewed first (many parts) is still being built: the rest is read once it is.
    await page.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 300_000 })
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
    // Where that time went: the marks the console sets (viewer-model.ts, engine.ts).
    const phases = await page.evaluate(() =>
      ['downloaded', 'preview', 'parsed', 'loaded', 'drawn'].map((name) => ({
        name,
        at: performance.getEntriesByName(`tessera:${name}`)[0]?.startTime ?? -1,
      })),
    )
    // Draw calls as the model opens, before anything is selected (a selected part draws itself).
    const stats = await page.evaluate(() => {
      type Stats = () => { meshes: number; calls: number; batches: number; triangles: number }
      return (
        document.querySelector('.viewport canvas') as HTMLCanvasElement & { tesseraDrawStats: Stats }
      ).tesseraDrawStats()
    })
    const first = page.getByRole('tree', { name: 'Scene tree' }).getByRole('treeitem').first()
    await first.waitFor({ timeout: 300_000 })
    const treeShown = await page.evaluate(() => performance.now())
    await first.click({ timeout: 300_000 })
    await page.locator('[role="treeitem"][aria-selected="true"]').first().waitFor({ timeout: 60_000 })
    const treeAnswers = await page.evaluate(() => performance.now())
    await bvhBuilt(page)
    const bvhDone = await page.evaluate(() => performance.now())
    const bvh = await timePicks(page, PICKS, true)
    const plain = await timePicks(page, PICKS, false)
    return [
      {
        model,
        metric: 'first_frame',
        value: firstFrame,
        unit: 'ms',
        target: model.endsWith('glb') ? '< 3,000' : undefined,
      },
      ...phases.map(({ name, at }) => ({ model, metric: `first_frame_${name}`, value: at, unit: 'ms' })),
      { model, metric: 'tree_shown', value: treeShown, unit: 'ms' },
      { model, metric: 'tree_answers', value: treeAnswers, unit: 'ms' },
      { model, metric: 'bvh_built', value: bvhDone, unit: 'ms' },
      { model, metric: 'pick_p95_bvh', value: percentile(bvh.ms, 95), unit: 'ms', target: '< 50' },
      { model, metric: 'pick_p50_bvh', value: percentile(bvh.ms, 50), unit: 'ms' },
      { model, metric: 'pick_p95_plain', value: percentile(plain.ms, 95), unit: 'ms' },
      { model, metric: 'pick_p50_plain', value: percentile(plain.ms, 50), unit: 'ms' },
      { model, metric: 'pick_hits', value: bvh.hits, unit: `of ${PICKS} (plain ${plain.hits})` },
      { model, metric: 'meshes', value: stats.meshes, unit: '' },
      { model, metric: 'draw_calls', value: stats.calls, unit: '' },
      { model, metric: 'draw_calls_if_instanced', value: stats.batches, unit: '' },
      { model, metric: 'triangles', value: stats.triangles, unit: '' },
      { model, metric: 'js_heap', value: await heapMb(page), unit: 'MB' },
    ]
  } finally {
    await page.context().close()
  }
}

/** The synthetic tree in place of the model's own: open each storey, scroll, close (p95 each). */
async function measureTree(browser: Browser, served: Served, id: string): Promise<Figure[]> {
  const tree = syntheticTree(SIZES.storeys, SIZES.perStorey)
  const model = `tree-${countNodes(tree)}`
  const page = await openSignedIn(browser, served)
  try {
    await serveTree(page, tree)
    await page.goto(`${served.baseUrl}/view/${id}`)
    await page.getByRole('treeitem', { name: 'Storey 1', exact: true }).waitFor({ timeout: 300_000 })
    const expand = await timeToggles(page, SIZES.storeys, SIZES.perStorey, true)
    const scroll = await timeScroll(page, 100)
    const collapse = await timeToggles(page, SIZES.storeys, SIZES.perStorey, false)
    return [
      ...Object.entries({ expand, scroll, collapse }).flatMap(([what, t]) => [
        { model, metric: `${what}_p95_dom`, value: percentile(t.dom, 95), unit: 'ms', target: '< 100' },
        { model, metric: `${what}_p95_frame`, value: percentile(t.frame, 95), unit: 'ms' },
      ]),
      { model, metric: 'js_heap', value: await heapMb(page), unit: 'MB' },
    ]
  } finally {
    await page.context().close()
  }
}

async function main(): Promise<void> {
  const glb = await partsGlb(SIZES.parts)
  const stl = terrainStl(SIZES.triangles)
  const names = [`parts-${SIZES.parts}.glb`, `terrain-${SIZES.triangles}.stl`]
  console.log(
    `models: ${names[0]} ${(glb.byteLength / 2 ** 20).toFixed(1)} MB, ${names[1]} ${(stl.byteLength / 2 ** 20).toFixed(1)} MB`,
  )
  const served = await serve(ROOT)
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-sandbox'],
  })
  try {
    const [glbId = '', stlId = ''] = await upload(served, [
      { name: names[0] ?? '', bytes: glb },
      { name: names[1] ?? '', bytes: new Uint8Array(stl) },
    ])
    const figures = [
      ...(await measureModel(browser, served, glbId, names[0] ?? '')),
      ...(await measureModel(browser, served, stlId, names[1] ?? '')),
      ...(await measureTree(browser, served, stlId)),
    ]
    console.log(
      `\nChromium ${browser.version()} headless, SwiftShader; ${os.cpus().length} CPUs, load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    )
    console.log('| model | figure | value | target |\n|---|---|---:|---|')
    for (const f of figures)
      console.log(
        `| ${f.model} | ${f.metric} | ${f.value.toFixed(f.unit === 'ms' || f.unit === 'MB' ? 1 : 0)} ${f.unit} | ${f.target ?? ''} |`,
      )
    const rows: ResultRow[] = figures.map(({ model, target, ...f }) => ({
      ...f,
      case: model,
      ...(target ? { note: `target ${target}` } : {}),
      browser: `Chromium ${browser.version()} headless, SwiftShader`,
      quick: args.quick,
    }))
    record('viewer', rows)
  } finally {
    await browser.close()
    await served.stop()
  }
}

await main()

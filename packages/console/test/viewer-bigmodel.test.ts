// Big models in the viewer (Chromium, software WebGL): picking through the bounds trees
// (three-mesh-bvh) still selects the right part and skips a hidden one; the model is drawn and
// orbitable before the scene tree arrives; a 100,000-node tree opens, closes and scrolls within a
// CI bound (the figures are logged; bench/viewer.ts measures them against the targets); a
// million-triangle geometry gets its tree in a web worker while the main thread stays free.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Document, NodeIO } from '@gltf-transform/core'
import type { Browser, Page } from 'playwright-core'
import {
  bvhBuilt,
  countNodes,
  percentile,
  serveTree,
  syntheticTree,
  type Timed,
  timePicks,
  timeScroll,
  timeToggles,
} from './support/big-viewer.ts'
import { collectErrors, launch, paintedShare, signInAsAdmin } from './support/browser.ts'
import { pixels } from './support/canvas-pixels.ts'
import { startTessera, type Tessera } from './support/server.ts'

const SHOTS = path.resolve(import.meta.dirname, '../../../docs/console')
/** Generous for a loaded CI machine; the target (bench/viewer.ts) is 100 ms. */
const TREE_BOUND_MS = 500

let server: Tessera
let browser: Browser
let page: Page
let errors: string[]

/** A small ball "Front" before a large flat one "Back": the canvas centre is on Front, then on Back. */
function frontBackGlb(): Promise<Uint8Array> {
  const document = new Document()
  const scene = document.createScene('Scene')
  const group = document.createNode('Stack')
  scene.addChild(group)
  // An ellipsoid of 32 × 32 segments, slightly bumpy (2,048 triangles that the conversion's
  // simplifier keeps): big enough for a bounds tree (picking.ts builds none under 512).
  const box = (name: string, size: number[], [r, g, b]: [number, number, number]) => {
    const n = 32
    const p: number[] = []
    for (let i = 0; i <= n; i++)
      for (let j = 0; j <= n; j++) {
        const [theta, phi] = [(i / n) * Math.PI, (j / n) * 2 * Math.PI]
        const bump = 1 + 0.01 * Math.sin(i * 7.1 + j * 3.3)
        const unit = [Math.sin(theta) * Math.cos(phi), Math.cos(theta), Math.sin(theta) * Math.sin(phi)]
        p.push(...unit.map((c, k) => (c * bump * (size[k] ?? 1)) / 2))
      }
    const indices: number[] = []
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        const a = i * (n + 1) + j
        indices.push(a, a + n + 1, a + 1, a + 1, a + n + 1, a + n + 2)
      }
    const primitive = document
      .createPrimitive()
      .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(new Float32Array(p)))
      .setIndices(document.createAccessor().setType('SCALAR').setArray(new Uint16Array(indices)))
      .setMaterial(document.createMaterial(name).setBaseColorFactor([r, g, b, 1]))
    return document.createMesh(name).addPrimitive(primitive)
  }
  group.addChild(
    document
      .createNode('Front')
      .setMesh(box('front', [1.6, 1.6, 1.6], [0.8, 0.2, 0.1]))
      .setTranslation([0, 0, 0.6]),
  )
  group.addChild(
    document
      .createNode('Back')
      .setMesh(box('back', [4, 4, 0.4], [0.2, 0.4, 0.8]))
      .setTranslation([0, 0, -1]),
  )
  const buffer = document.createBuffer()
  for (const accessor of document.getRoot().listAccessors()) accessor.setBuffer(buffer)
  return new NodeIO().writeBinary(document)
}

/**
 * 441 boxes in a flat 21 × 21 grid (the middle one at the canvas centre), gaps between them, from
 * two meshes (red and blue, alternating): two batches when drawn instanced, and enough parts for
 * the tree over the parts (picking.ts).
 */
function gridGlb(side = 21): Promise<Uint8Array> {
  const document = new Document()
  const buffer = document.createBuffer()
  const scene = document.createScene('Scene')
  const grid = document.createNode('Grid')
  scene.addChild(grid)
  // A unit box: 8 corners, 12 triangles.
  const corners = [0, 1, 2, 3, 4, 5, 6, 7].flatMap((i) =>
    [i & 1, (i >> 1) & 1, (i >> 2) & 1].map((c) => c - 0.5),
  )
  const faces = [
    0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1, 2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7,
    3,
  ]
  const mesh = (name: string, colour: [number, number, number, number]) =>
    document.createMesh(name).addPrimitive(
      document
        .createPrimitive()
        .setAttribute(
          'POSITION',
          document.createAccessor().setType('VEC3').setArray(new Float32Array(corners)).setBuffer(buffer),
        )
        .setIndices(
          document.createAccessor().setType('SCALAR').setArray(new Uint16Array(faces)).setBuffer(buffer),
        )
        .setMaterial(document.createMaterial(name).setBaseColorFactor(colour)),
    )
  const meshes = [mesh('red', [0.8, 0.1, 0.1, 1]), mesh('blue', [0.1, 0.2, 0.8, 1])]
  for (let i = 0; i < side * side; i++) {
    const [row, column] = [Math.floor(i / side), i % side]
    const part = document.createNode(`P${i}`).setMesh(meshes[(row + column) % 2] ?? null)
    const half = (side - 1) / 2
    grid.addChild(part.setTranslation([(column - half) * 1.6, (row - half) * 1.6, 0]))
  }
  return new NodeIO().writeBinary(document)
}

/**
 * A terrain of `n` × `n` quads (2n² triangles, one geometry), on a bumpy height field that the
 * conversion's simplifier keeps: big enough for its bounds tree to be built in the web worker.
 */
function terrainGlb(n: number): Promise<Uint8Array> {
  const document = new Document()
  const buffer = document.createBuffer()
  const positions = new Float32Array((n + 1) * (n + 1) * 3)
  let seed = 1
  const random = () => {
    seed = (seed * 16_807) % 2_147_483_647
    return seed / 2_147_483_647
  }
  for (let i = 0; i <= n; i++)
    for (let j = 0; j <= n; j++)
      positions.set([j / n - 0.5, i / n - 0.5, 0.01 * random()], (i * (n + 1) + j) * 3)
  const indices = new Uint32Array(n * n * 6)
  for (let i = 0, k = 0; i < n; i++)
    for (let j = 0; j < n; j++, k += 6) {
      const a = i * (n + 1) + j
      indices.set([a, a + 1, a + n + 1, a + 1, a + n + 2, a + n + 1], k)
    }
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(positions).setBuffer(buffer))
    .setIndices(document.createAccessor().setType('SCALAR').setArray(indices).setBuffer(buffer))
  const mesh = document.createMesh('terrain').addPrimitive(primitive)
  document.createScene('Scene').addChild(document.createNode('Terrain').setMesh(mesh))
  return new NodeIO().writeBinary(document)
}

type Probe = HTMLCanvasElement & {
  tesseraPick(x: number, y: number, accelerated: boolean): { nodeId: string | null; distance: number | null }
  tesseraDrawStats(): { meshes: number; calls: number; batches: number }
  tesseraApply(view: unknown): void
  tesseraTimeTreeInThread(): number
}

/** The part under each of 100 points over the middle of the canvas, through the trees and by the plain raycast. */
function picksBothWays(p: Page): Promise<{ tree: (string | null)[]; plain: (string | null)[] }> {
  return p.evaluate(() => {
    const canvas = document.querySelector('.viewport canvas') as Probe
    const rect = canvas.getBoundingClientRect()
    const points = Array.from({ length: 100 }, (_, i) => [
      rect.left + rect.width * (0.35 + 0.3 * ((i % 10) / 9)),
      rect.top + rect.height * (0.35 + 0.3 * (Math.floor(i / 10) / 9)),
    ])
    const all = (accelerated: boolean) =>
      points.map(([x = 0, y = 0]) => canvas.tesseraPick(x, y, accelerated).nodeId)
    return { tree: all(true), plain: all(false) }
  })
}

const drawStats = (p: Page) => p.locator('.viewport canvas').evaluate((c) => (c as Probe).tesseraDrawStats())

/** How far the canvas is from the background, on average over its pixels and channels. */
async function distanceFromBackground(p: Page): Promise<number> {
  const data = await pixels(p)
  const background = [0xee, 0xf1, 0xf5]
  let sum = 0
  for (let i = 0; i < data.length; i += 4)
    for (let k = 0; k < 3; k++) sum += Math.abs((data[i + k] ?? 0) - (background[k] ?? 0))
  return sum / ((data.length / 4) * 3)
}

/** The canvas pixel at its centre, RGB. */
async function centrePixel(p: Page): Promise<number[]> {
  const data = await pixels(p)
  const { width, height } = await p.locator('.viewport canvas').evaluate((c) => ({
    width: (c as HTMLCanvasElement).width,
    height: (c as HTMLCanvasElement).height,
  }))
  const i = (Math.floor(height / 2) * width + Math.floor(width / 2)) * 4
  return [data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0]
}

/** The front view (key 1), once the camera's flight there has ended: the grid face-on. */
async function frontView(p: Page): Promise<void> {
  const camera = () => p.locator('.viewport').getAttribute('data-camera')
  const before = await camera()
  await p.locator('.viewport canvas').focus()
  await p.keyboard.press('1')
  let [last, now] = [before, await camera()]
  for (let i = 0; i < 100 && (now === before || now !== last); i++) {
    await p.waitForTimeout(100)
    ;[last, now] = [now, await camera()]
  }
}

/** Uploads a GLB from the Files screen and waits for its conversion. */
async function upload(p: Page, name: string, bytes: Uint8Array): Promise<void> {
  await p.getByRole('link', { name: 'Files', exact: true }).click()
  await p
    .getByTestId('upload-input')
    .setInputFiles([{ name, mimeType: 'model/gltf-binary', buffer: Buffer.from(bytes) }])
  await p.locator(`.row[data-file="${name}"] [data-state="ready"]`).waitFor({ timeout: 180_000 })
}

async function openViewer(p: Page, name: string): Promise<void> {
  await p.getByRole('link', { name: 'Files', exact: true }).click()
  await p.locator(`.row[data-file="${name}"]`).click()
  await p.getByRole('link', { name: 'Open viewer' }).click()
  await p.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 120_000 })
}

async function clickCentre(p: Page): Promise<void> {
  const box = await p.locator('.viewport canvas').boundingBox()
  assert.ok(box)
  await p.mouse.click(box.x + box.width / 2, box.y + box.height / 2)
}

const tree = () => page.getByRole('tree', { name: 'Scene tree' })

describe('viewer with big models', { timeout: 300_000 }, () => {
  before(async () => {
    server = await startTessera()
    browser = await launch()
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
    errors = collectErrors(page, [401])
    await signInAsAdmin(page, server)
    await upload(page, 'stack.glb', await frontBackGlb())
  })

  after(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('draws the model and lets it be orbited before the scene tree arrives', async () => {
    await serveTree(page, null, 4000)
    await openViewer(page, 'stack.glb')
    const loadingParts = page.getByRole('status').filter({ hasText: 'Loading parts…' })
    await page.waitForFunction(() => document.querySelector('.viewport[data-phase="ready"]') !== null)
    // Drawn, and the tree still on its way.
    for (let i = 0; i < 50 && (await paintedShare(page)) < 0.02; i++) await page.waitForTimeout(100)
    assert.ok((await paintedShare(page)) >= 0.02, 'the model is drawn')
    assert.ok(await loadingParts.isVisible(), 'the parts panel says the tree is loading')
    assert.equal(await tree().getByRole('treeitem').count(), 0, 'no tree yet')
    const before = await page.locator('.viewport').getAttribute('data-camera')
    await page.locator('.viewport canvas').focus()
    await page.keyboard.press('ArrowLeft')
    await page.waitForFunction(
      (b) => document.querySelector('.viewport')?.getAttribute('data-camera') !== b,
      before,
    )
    await tree().getByRole('treeitem', { name: 'Front' }).waitFor({ timeout: 15_000 })
    assert.equal(await loadingParts.count(), 0)
    await page.unrouteAll()
  })

  it('picks through the bounds trees: the part under the pointer, and what is behind a hidden one', async () => {
    await openViewer(page, 'stack.glb')
    await tree().getByRole('treeitem', { name: 'Front' }).waitFor()
    const built = await bvhBuilt(page)
    assert.deepEqual(
      built,
      { built: 2, pending: 0, parts: false, inWorker: 0 },
      'both geometries have a bounds tree, built in the main thread (2,048 triangles each)',
    )
    await clickCentre(page)
    await tree().getByRole('treeitem', { name: 'Front', selected: true }).waitFor({ timeout: 15_000 })
    await page.getByRole('button', { name: 'Hide Front' }).click()
    await clickCentre(page)
    await tree().getByRole('treeitem', { name: 'Back', selected: true }).waitFor({ timeout: 15_000 })
    // The timed probe agrees with the plain three.js raycast.
    const [bvh, plain] = [await timePicks(page, 100, true), await timePicks(page, 100, false)]
    assert.equal(bvh.hits, plain.hits)
    assert.ok(bvh.hits > 0)
  })

  it('opens, closes and scrolls a 100,000-node tree within the bound', async () => {
    // Two storeys of 50,000: each open or close adds or drops 50,000 rows (the bench opens 100 of 999).
    const big = syntheticTree(2, 50_000)
    assert.equal(countNodes(big), 100_003)
    await serveTree(page, big)
    await openViewer(page, 'stack.glb')
    await tree().getByRole('treeitem', { name: 'Storey 1', exact: true }).waitFor({ timeout: 30_000 })
    const expand = await timeToggles(page, 2, 50_000, true)
    // Every row of the tree is in the list now (30 px each): the scroll goes through 100,003 rows.
    assert.equal(
      await page.locator('.tree-rows').evaluate((e) => Number.parseFloat(e.style.height)),
      100_003 * 30,
    )
    const scroll = await timeScroll(page, 20)
    // The list open at a place deep in its 100,003 rows.
    await page.screenshot({ path: path.join(SHOTS, 'viewer-bigmodel-tree.png') })
    const collapse = await timeToggles(page, 2, 50_000, false)
    const p95 = (t: Timed) =>
      `${percentile(t.dom, 95).toFixed(0)} ms (next frame ${percentile(t.frame, 95).toFixed(0)} ms)`
    console.log(
      `# 100,003-node tree, p95 until the rows are drawn: expand ${p95(expand)}, scroll ${p95(scroll)}, collapse ${p95(collapse)}`,
    )
    // The bound is on the console's own work; the next frame follows the machine's load.
    for (const [what, t] of Object.entries({ expand, scroll, collapse }))
      assert.ok(percentile(t.dom, 95) < TREE_BOUND_MS, `${what}: ${p95(t)}`)
    await page.unrouteAll()
  })

  it('draws repeated parts instanced, and picks, selects, hides and explodes them as parts', async () => {
    await upload(page, 'grid.glb', await gridGlb())
    await openViewer(page, 'grid.glb')
    await tree().getByRole('treeitem', { name: 'Grid' }).waitFor()
    await frontView(page)
    assert.equal((await bvhBuilt(page)).parts, true, 'the tree over the parts is built')
    const drawn = await drawStats(page)
    assert.equal(drawn.meshes, 441)
    assert.equal(drawn.batches, 2)
    // One draw call per batch (and a few for helpers), not one per part.
    assert.ok(drawn.calls < 12, `draw calls: ${drawn.calls}`)
    await page.screenshot({ path: path.join(SHOTS, 'viewer-instanced.png') })
    const flat = await picksBothWays(page)
    assert.deepEqual(flat.tree, flat.plain, 'the tree over the parts finds what the plain raycast finds')
    // About 40 % of the grid's area is boxes.
    assert.ok(flat.tree.filter(Boolean).length > 15, `${flat.tree.filter(Boolean).length} points on a part`)

    // Selected: the part draws itself, lifted (brighter), the others stay in their batch.
    const plainCentre = await centrePixel(page)
    await clickCentre(page)
    const selected = tree().getByRole('treeitem', { selected: true })
    await selected.waitFor({ timeout: 15_000 })
    const name = await selected.getAttribute('data-name')
    const lifted = await centrePixel(page)
    assert.ok(
      lifted.reduce((a, b) => a + b) > plainCentre.reduce((a, b) => a + b) + 20,
      `${plainCentre} → ${lifted}`,
    )
    assert.ok((await drawStats(page)).calls < 20)

    // Hidden: gone from its batch too (the background shows where it was), and never picked.
    await page.getByRole('button', { name: `Hide ${name}` }).click()
    // Deselected too: a hidden part that is not lifted would be back in its batch if hiding missed it.
    await page.locator('.viewport canvas').focus()
    await page.keyboard.press('Escape')
    await tree().getByRole('treeitem', { selected: true }).waitFor({ state: 'detached' })
    const hidden = await centrePixel(page)
    const background = await page.evaluate(() =>
      getComputedStyle(document.documentElement).getPropertyValue('--viewer-bg'),
    )
    assert.ok(
      Math.max(...hidden) - Math.min(...hidden) < 20,
      `a grey background where the part was: ${hidden} (${background})`,
    )
    const centre = await page.locator('.viewport canvas').evaluate((c) => {
      const r = c.getBoundingClientRect()
      return (c as Probe).tesseraPick(r.left + r.width / 2, r.top + r.height / 2, true).nodeId
    })
    assert.equal(centre, null)

    // Exploded: the parts move apart; the tree over them is refit, and still agrees with the raycast.
    await page
      .locator('.viewport canvas')
      .evaluate((c) => (c as Probe).tesseraApply({ explode: { enabled: true, distance: 0.6 } }))
    const spread = await picksBothWays(page)
    assert.deepEqual(spread.tree, spread.plain)
    assert.notDeepEqual(spread.tree, flat.tree, 'the parts under the points changed')

    // X-ray with nothing kept: every part a ghost, drawn through a ghost batch per pair, faint.
    const solid = await distanceFromBackground(page)
    await page
      .locator('.viewport canvas')
      .evaluate((c) =>
        (c as Probe).tesseraApply({ xray: { enabled: true, opacity: 0.25, keep: [], others: [] } }),
      )
    const ghosts = await distanceFromBackground(page)
    assert.ok(ghosts < solid * 0.6, `ghosts are faint: ${ghosts.toFixed(1)} against ${solid.toFixed(1)}`)
    const ghostCalls = (await drawStats(page)).calls
    assert.ok(ghostCalls < 12, `ghosts drawn in batches: ${ghostCalls} draw calls`)
  })

  it('previews a model of many parts while it is built, then swaps in the same picture', async () => {
    // 3,600 parts: over the 2,000 from which a model is previewed (viewer/many-parts.ts).
    await upload(page, 'many.glb', await gridGlb(60))
    // What the page looked like at each phase of the load, seen as it happened.
    await page.evaluate(() => {
      const seen: { phase: string; painted: number; note: string }[] = []
      const observer = new MutationObserver(() => {
        const viewport = document.querySelector('.viewport')
        const phase = viewport?.getAttribute('data-phase') ?? ''
        if (seen.at(-1)?.phase === phase) return
        const canvas = viewport?.querySelector('canvas')
        let painted = 0
        if (canvas && canvas.width > 0) {
          const copy = Object.assign(document.createElement('canvas'), {
            width: canvas.width,
            height: canvas.height,
          })
          const ctx = copy.getContext('2d') as CanvasRenderingContext2D
          ctx.drawImage(canvas, 0, 0)
          const data = ctx.getImageData(0, 0, copy.width, copy.height).data
          let total = 0
          for (let i = 0; i < data.length; i += 4 * 7, total++)
            if (Math.abs((data[i] ?? 0) - 0xee) + Math.abs((data[i + 2] ?? 0) - 0xf5) > 24) painted++
          painted /= total
        }
        seen.push({ phase, painted, note: document.querySelector('.overlay-note')?.textContent ?? '' })
      })
      observer.observe(document, {
        subtree: true,
        attributes: true,
        attributeFilter: ['data-phase'],
        childList: true,
      })
      Object.assign(window, { tesseraPhases: seen, tesseraPhasesStop: () => observer.disconnect() })
    })
    await openViewer(page, 'many.glb')
    type Seen = { phase: string; painted: number; note: string }[]
    const seen = await page.evaluate(() => {
      const w = window as unknown as { tesseraPhases: Seen; tesseraPhasesStop: () => void }
      w.tesseraPhasesStop()
      return w.tesseraPhases
    })
    const phases = seen.map((s) => s.phase)
    assert.deepEqual(
      phases.slice(phases.indexOf('preparing')),
      ['preparing', 'preview', 'ready'],
      phases.join(' → '),
    )
    const preview = seen.find((s) => s.phase === 'preview')
    assert.ok(preview && preview.painted > 0.05, `the preview is drawn: ${preview?.painted}`)
    assert.equal(preview?.note, 'Preparing the parts…')
    // The built model, in the same camera: the same picture as its preview.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
    const built = await paintedShare(page)
    assert.ok(Math.abs(built - (preview?.painted ?? 0)) < 0.01, `preview ${preview?.painted}, built ${built}`)
    assert.equal(await page.locator('.overlay-note').count(), 0)
    // Parts like any other: 3,600 meshes in two batches, picked and selected from the view.
    const drawn = await drawStats(page)
    assert.deepEqual([drawn.meshes, drawn.batches], [3600, 2])
    await tree().getByRole('treeitem', { name: 'Grid' }).waitFor()
    await clickCentre(page)
    await tree().getByRole('treeitem', { selected: true }).waitFor({ timeout: 15_000 })
  })

  it("builds a big geometry's tree in a web worker: the main thread stays responsive", async () => {
    // ~1 M triangles in one geometry (the bench's STL has 3.3 M after conversion).
    const n = 708
    await upload(page, 'terrain.glb', await terrainGlb(n))
    // Every main-thread task over 50 ms from here on (the Long Tasks API).
    await page.evaluate(() => {
      const tasks: PerformanceEntry[] = []
      const observer = new PerformanceObserver((list) => tasks.push(...list.getEntries()))
      observer.observe({ type: 'longtask' })
      Object.assign(window, { tesseraLongTasks: () => [...tasks, ...observer.takeRecords()] })
    })
    await openViewer(page, 'terrain.glb')
    // Picked at once: the plain raycast while the tree is on its way (the geometry stays whole).
    const early = await page.locator('.viewport canvas').evaluate((c) => {
      const r = c.getBoundingClientRect()
      return (c as Probe).tesseraPick(r.left + r.width / 2, r.top + r.height / 2, true).nodeId
    })
    assert.ok(early, 'the terrain is picked before its tree is built')
    assert.deepEqual(await bvhBuilt(page), { built: 1, pending: 0, parts: false, inWorker: 1 })
    // The longest main-thread task from the build's first idle slice until the last tree.
    const { longest, build } = await page.evaluate(() => {
      const [span] = performance.getEntriesByName('tessera:trees', 'measure').slice(-1)
      if (!span) throw new Error('no tessera:trees measure')
      const end = span.startTime + span.duration
      const tasks = (window as unknown as { tesseraLongTasks(): PerformanceEntry[] }).tesseraLongTasks()
      const during = tasks.filter((t) => t.startTime < end && t.startTime + t.duration > span.startTime)
      return { longest: Math.max(0, ...during.map((t) => t.duration)), build: span.duration }
    })
    const inThread = await page
      .locator('.viewport canvas')
      .evaluate((c) => (c as Probe).tesseraTimeTreeInThread())
    console.log(
      `# ${2 * n * n} triangles: tree built in the worker in ${build.toFixed(0)} ms, longest main-thread ` +
        `task meanwhile ${longest.toFixed(0)} ms; the same tree built in the main thread: ${inThread.toFixed(0)} ms`,
    )
    assert.ok(longest < inThread / 3, `longest task ${longest} ms, in-thread build ${inThread} ms`)
    // The tree from the worker finds the points the plain raycast finds (6 × 6 rays over the terrain;
    // each plain one tests the million triangles).
    const apart = await page.locator('.viewport canvas').evaluate((c) => {
      const r = c.getBoundingClientRect()
      let [hits, worst] = [0, 0]
      for (let i = 0; i < 36; i++) {
        const x = r.left + r.width * (0.4 + 0.04 * (i % 6))
        const y = r.top + r.height * (0.3 + 0.08 * Math.floor(i / 6))
        const [tree, plain] = [true, false].map((a) => (c as Probe).tesseraPick(x, y, a).distance)
        if (tree !== null) hits++
        const gap = tree === plain ? 0 : tree == null || plain == null ? Infinity : Math.abs(tree - plain)
        worst = Math.max(worst, gap)
      }
      return { hits, worst }
    })
    assert.ok(apart.hits > 30, `${apart.hits} of 36 rays on the terrain`)
    assert.ok(apart.worst < 1e-6, `hit points apart by ${apart.worst}`)
  })

  it('has no console errors', () => {
    assert.deepEqual(errors, [])
  })
})

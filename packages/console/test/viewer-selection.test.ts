// Selection of several parts in Chromium (software WebGL): Ctrl/Cmd+click and Shift+click in 3D and
// in the tree, a saved view that brings the set back after a reload, a configuration made through
// the API, tree search with "Select all results" and "Isolate results", window and crossing boxes,
// the tree's keyboard (Enter, Space, Shift+arrows, Ctrl+A), F framing the whole selection, and axe;
// a part and its parent both selected are outlined once; a part on a switched-off layer is neither
// taken by a box nor framed by Fit all.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Document, NodeIO } from '@gltf-transform/core'
import type { Browser, Page } from 'playwright-core'
import { apiSession } from './support/api-session.ts'
import { axe, blocking, describeFindings } from './support/axe.ts'
import { collectErrors, launch, signInAsAdmin } from './support/browser.ts'
import { count, isOutline, meanDiff, pixels } from './support/canvas-pixels.ts'
import { startTessera, type Tessera } from './support/server.ts'

const SHOTS = path.resolve(import.meta.dirname, '../../../docs/console')
const SPACING = 2.5
/** Five boxes in a row along x, each its own colour (found on the canvas by hue). */
const PARTS = [
  { name: 'Bolt 1', hue: 'red', color: [0.8, 0.04, 0.04, 1] },
  { name: 'Bolt 2', hue: 'green', color: [0.04, 0.6, 0.04, 1] },
  { name: 'Plate', hue: 'blue', color: [0.04, 0.1, 0.8, 1] },
  { name: 'Bolt 3', hue: 'yellow', color: [0.8, 0.7, 0.04, 1] },
  { name: 'Frame', hue: 'magenta', color: [0.7, 0.04, 0.7, 1] },
] as const

const BOX_INDICES = [
  0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1, 2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3,
]

function rowGlb(): Promise<Uint8Array> {
  const document = new Document()
  const root = document.createNode('Row')
  document.createScene('Scene').addChild(root)
  const p: number[] = []
  for (const x of [-0.4, 0.4]) for (const y of [-0.4, 0.4]) for (const z of [-0.4, 0.4]) p.push(x, y, z)
  PARTS.forEach((part, i) => {
    const primitive = document
      .createPrimitive()
      .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(new Float32Array(p)))
      .setIndices(document.createAccessor().setType('SCALAR').setArray(new Uint16Array(BOX_INDICES)))
      .setMaterial(document.createMaterial(part.name).setBaseColorFactor([...part.color]))
    const mesh = document.createMesh(part.name).addPrimitive(primitive)
    root.addChild(
      document
        .createNode(part.name)
        .setMesh(mesh)
        .setTranslation([(i - 2) * SPACING, 0, 0]),
    )
  })
  const buffer = document.createBuffer()
  for (const accessor of document.getRoot().listAccessors()) accessor.setBuffer(buffer)
  return new NodeIO().writeBinary(document)
}

interface Rect {
  left: number
  top: number
  right: number
  bottom: number
  x: number
  y: number
}

/** Each coloured part's pixels on the canvas: bounds and centre, in page (CSS) coordinates. */
function partsOnCanvas(p: Page): Promise<Record<string, Rect>> {
  return p.evaluate(() => {
    const source = document.querySelector('.viewport canvas') as HTMLCanvasElement
    const copy = document.createElement('canvas')
    copy.width = source.width
    copy.height = source.height
    const ctx = copy.getContext('2d') as CanvasRenderingContext2D
    ctx.drawImage(source, 0, 0)
    const data = ctx.getImageData(0, 0, copy.width, copy.height).data
    const box = source.getBoundingClientRect()
    const scale = box.width / source.width
    const found: Record<
      string,
      { l: number; t: number; r: number; b: number; sx: number; sy: number; n: number }
    > = {}
    const hueName = (h: number) =>
      h < 25 || h >= 335 ? 'red' : h < 75 ? 'yellow' : h < 160 ? 'green' : h < 260 ? 'blue' : 'magenta'
    for (let i = 0; i < data.length; i += 4) {
      const [r, g, b] = [data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0]
      const max = Math.max(r, g, b)
      const c = max - Math.min(r, g, b)
      if (max < 40 || c / max < 0.6) continue
      let h = max === r ? ((g - b) / c) % 6 : max === g ? (b - r) / c + 2 : (r - g) / c + 4
      h = h * 60 < 0 ? h * 60 + 360 : h * 60
      const name = hueName(h)
      const x = (i / 4) % source.width
      const y = Math.floor(i / 4 / source.width)
      const f = found[name] ?? { l: x, t: y, r: x, b: y, sx: 0, sy: 0, n: 0 }
      Object.assign(f, { l: Math.min(f.l, x), t: Math.min(f.t, y), r: Math.max(f.r, x), b: Math.max(f.b, y) })
      f.sx += x
      f.sy += y
      f.n++
      found[name] = f
    }
    return Object.fromEntries(
      Object.entries(found)
        .filter(([, f]) => f.n > 30)
        .map(([name, f]) => [
          name,
          {
            left: box.left + f.l * scale,
            top: box.top + f.t * scale,
            right: box.left + f.r * scale,
            bottom: box.top + f.b * scale,
            x: box.left + (f.sx / f.n) * scale,
            y: box.top + (f.sy / f.n) * scale,
          },
        ]),
    )
  })
}

let server: Tessera
let browser: Browser
let page: Page
let errors: string[]
let fileId = ''
/** Part name → its scene-tree id. */
const ids: Record<string, string> = {}

async function selection(p: Page): Promise<string[]> {
  const snapshot = (await p.locator('.viewport canvas').evaluate((c) => {
    return (c as unknown as { tesseraSnapshot: () => unknown }).tesseraSnapshot()
  })) as { selection: { nodes: string[] } }
  return snapshot.selection.nodes
}

const idsOf = (...names: string[]) => names.map((n) => ids[n] as string)

async function treeSelected(p: Page): Promise<string[]> {
  return p
    .locator('[role="treeitem"][aria-selected="true"]')
    .evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.id ?? ''))
}

/** A slice of a view applied as restoring a saved view would (engine.apply, the canvas's test hook). */
function apply(view: Record<string, unknown>): Promise<void> {
  return page
    .locator('.viewport canvas')
    .evaluate((c, v) => (c as unknown as { tesseraApply(v: unknown): void }).tesseraApply(v), view)
}

/** The camera's target (x, y, z) once it stands still: the same pose in three reads 200 ms apart. */
async function settledTarget(): Promise<number[]> {
  let last = ''
  let same = 0
  for (let i = 0; i < 50 && same < 2; i++) {
    await page.waitForTimeout(200)
    const now = (await page.locator('.viewport').getAttribute('data-camera')) ?? ''
    same = now === last ? same + 1 : 0
    last = now
  }
  assert.equal(same, 2, 'the camera never stopped')
  return last.split(',').map(Number).slice(3, 6)
}

async function openViewer(p: Page): Promise<void> {
  await p.goto(`${server.baseUrl}/view/${fileId}`)
  await p.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
  await p.waitForTimeout(300)
}

async function until(test: () => Promise<boolean>, what: string, timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await page.waitForTimeout(100)
  }
}

/** The five parts once all are drawn and the camera stands still (a loaded machine draws late). */
async function drawnParts(): Promise<Record<string, Rect>> {
  let camera = ''
  let at: Record<string, Rect> = {}
  await until(
    async () => {
      const now = (await page.locator('.viewport').getAttribute('data-camera')) ?? ''
      const still = now === camera
      camera = now
      at = await partsOnCanvas(page)
      return still && Object.keys(at).length === PARTS.length
    },
    'the five parts drawn',
    30_000,
  )
  return at
}

describe('selection of several parts', { timeout: 300_000 }, () => {
  before(async () => {
    server = await startTessera()
    // Prepared through the API before the page signs in (a session of admin supersedes another).
    const api = await apiSession(server.baseUrl, 'admin', server.adminPassword)
    fileId = (await api.uploadReady('row.glb', await rowGlb()))._id
    const { tree } = await api.call<{ tree: { id: string; name: string; children: unknown[] }[] }>(
      'GET',
      `/file/${fileId}/scene-tree`,
    )
    const walk = (nodes: { id: string; name: string; children: unknown[] }[]) => {
      for (const n of nodes) {
        ids[n.name] = n.id
        walk(n.children as typeof nodes)
      }
    }
    walk(tree)
    await api.call('POST', '/file/configuration/', {
      file: fileId,
      name: 'Two by API',
      selectedNodes: idsOf('Plate', 'Frame'),
      rememberSelection: true,
    })
    browser = await launch()
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
    errors = collectErrors(page, [401])
    await signInAsAdmin(page, server)
    await openViewer(page)
  })

  after(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('Ctrl+click in 3D and in the tree selects three parts; the view brings them back after a reload', async () => {
    const at = await drawnParts()
    for (const part of PARTS) assert.ok(at[part.hue], `${part.name} (${part.hue}) is on the canvas`)
    const click = (hue: string, modifiers: ('Control' | 'Shift')[] = []) =>
      page.mouse.move(at[hue]?.x ?? 0, at[hue]?.y ?? 0).then(async () => {
        for (const m of modifiers) await page.keyboard.down(m)
        await page.mouse.down()
        await page.mouse.up()
        for (const m of modifiers) await page.keyboard.up(m)
      })
    await click('red')
    assert.deepEqual(await selection(page), idsOf('Bolt 1'))
    await click('green', ['Control'])
    await page.locator('[role="treeitem"][data-name="Plate"]').click({ modifiers: ['ControlOrMeta'] })
    assert.deepEqual(await selection(page), idsOf('Bolt 1', 'Bolt 2', 'Plate'))
    await page.getByText('3 parts selected').waitFor()
    // Shift+click adds; Ctrl+click on a selected part takes it out again.
    await click('yellow', ['Shift'])
    assert.deepEqual(await selection(page), idsOf('Bolt 1', 'Bolt 2', 'Plate', 'Bolt 3'))
    await click('yellow', ['Control'])
    assert.deepEqual(await selection(page), idsOf('Bolt 1', 'Bolt 2', 'Plate'))
    assert.deepEqual((await treeSelected(page)).sort(), idsOf('Bolt 1', 'Bolt 2', 'Plate').sort())

    await page.getByRole('tab', { name: /Views/ }).click()
    await page.getByLabel('View name').fill('Three parts')
    await page.getByRole('button', { name: 'Save current view' }).click()
    await page.getByRole('button', { name: 'Restore Three parts' }).waitFor()
    await page.reload()
    await page.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
    assert.deepEqual(await selection(page), [])
    await page.getByRole('tab', { name: /Views/ }).click()
    await page.getByRole('button', { name: 'Restore Three parts' }).click()
    assert.deepEqual(await selection(page), idsOf('Bolt 1', 'Bolt 2', 'Plate'))
    await page.getByRole('tab', { name: 'Parts' }).click()
    assert.deepEqual((await treeSelected(page)).sort(), idsOf('Bolt 1', 'Bolt 2', 'Plate').sort())
  })

  it('a configuration made through the API with two selected nodes restores both', async () => {
    await page.getByRole('tab', { name: /Views/ }).click()
    await page.getByRole('button', { name: 'Restore Two by API' }).click()
    assert.deepEqual(await selection(page), idsOf('Plate', 'Frame'))
    await page.getByRole('tab', { name: 'Parts' }).click()
    assert.deepEqual((await treeSelected(page)).sort(), idsOf('Plate', 'Frame').sort())
    await page.getByText('2 parts selected').waitFor()
  })

  it('F frames every selected part', async () => {
    await page.locator('.viewport canvas').focus()
    await page.keyboard.press('f')
    // Plate (x = 0) and Frame (x = 5): the framed centre is halfway, x = 2.5.
    await until(async () => {
      const target = ((await page.locator('.viewport').getAttribute('data-camera')) ?? '')
        .split(',')
        .map(Number)
      return Math.abs((target[3] ?? 0) - SPACING) < 1e-3 && Math.abs(target[4] ?? 1) < 1e-3
    }, 'the camera to frame Plate and Frame')
    await page.getByRole('button', { name: 'Fit all' }).click()
    await page.waitForTimeout(900)
  })

  it('search: count, the tree filtered, select all results, isolate results', async () => {
    const search = page.getByLabel('Search parts by name')
    await search.fill('BOLT')
    const count = page.locator('.tree-search-count')
    await until(async () => (await count.getAttribute('data-count')) === '3', 'three matches')
    assert.equal(await count.textContent(), '3 parts match')
    // Filtered: the three bolts and their parent, not Plate or Frame.
    const rows = await page
      .locator('[role="treeitem"]')
      .evaluateAll((r) => r.map((x) => (x as HTMLElement).dataset.name))
    assert.deepEqual(rows, ['Row', 'Bolt 1', 'Bolt 2', 'Bolt 3'])
    await page.getByRole('button', { name: 'Select all results' }).click()
    assert.deepEqual(await selection(page), idsOf('Bolt 1', 'Bolt 2', 'Bolt 3'))
    await page.getByText('3 parts selected').waitFor()
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme })
      await until(
        async () => (await page.evaluate(() => document.documentElement.dataset.theme)) === theme,
        `the ${theme} theme`,
      )
      await page.waitForTimeout(300)
      await page.screenshot({
        path: path.join(SHOTS, `tool-selection${theme === 'dark' ? '-dark' : ''}.png`),
      })
      const findings = blocking(await axe(page))
      assert.equal(findings.length, 0, `${theme}: ${describeFindings(findings)}`)
    }
    await page.emulateMedia({ colorScheme: 'light' })

    await page.getByRole('button', { name: 'Isolate results' }).click()
    // Without the outlines (the accent blue would pass for Plate's).
    await page.locator('.viewport canvas').focus()
    await page.keyboard.press('Escape')
    await until(async () => !(await partsOnCanvas(page)).blue, 'Plate to be hidden')
    const shown = await partsOnCanvas(page)
    assert.ok(!shown.magenta, 'Frame is hidden')
    assert.ok(shown.red && shown.yellow, 'the bolts stay')
    await search.fill('')
    await until(async () => (await page.locator('[role="treeitem"]').count()) === 6, 'the whole tree again')
    assert.equal(
      await page.locator('[role="treeitem"][data-name="Plate"]').getAttribute('aria-label'),
      'Plate (hidden)',
    )
    await page.getByRole('button', { name: 'Show all' }).click()
    await page.keyboard.press('Escape')
  })

  it('box select: left to right takes the parts inside, right to left those touching', async () => {
    await page.locator('.viewport canvas').focus()
    await page.keyboard.press('Escape')
    await page.getByRole('button', { name: 'Fit all' }).click()
    const at = await drawnParts()
    const [red, green, blue] = [at.red as Rect, at.green as Rect, at.blue as Rect]
    const top = Math.min(red.top, green.top) - 8
    const bottom = Math.max(red.bottom, green.bottom) + 8
    const drag = async (from: [number, number], to: [number, number], keys: ('Shift' | 'Control')[]) => {
      for (const k of keys) await page.keyboard.down(k)
      await page.mouse.move(...from)
      await page.mouse.down()
      await page.mouse.move(...to, { steps: 8 })
      await page.mouse.up()
      for (const k of keys) await page.keyboard.up(k)
    }
    const camera = await page.locator('.viewport').getAttribute('data-camera')
    // Window (left to right) around Bolt 1 and Bolt 2, whole; Plate only partly in it.
    await drag([red.left - 8, top], [green.right + 8, bottom], ['Shift'])
    assert.deepEqual(await selection(page), idsOf('Bolt 1', 'Bolt 2'))
    assert.equal(
      await page.locator('.viewport').getAttribute('data-camera'),
      camera,
      'Shift+drag did not move the camera',
    )
    // The same box right to left: a crossing, Plate touches it too.
    await drag([blue.x, blue.y], [green.x, green.y], ['Shift'])
    assert.deepEqual((await selection(page)).sort(), idsOf('Bolt 2', 'Plate').sort())
    // In Box select mode a plain drag draws the box; with Ctrl it adds to the selection.
    await page.getByRole('button', { name: 'Box select' }).click()
    // The mode reaches the engine in an effect, after the next paint: a drag before it would orbit.
    await page.getByRole('button', { name: 'Box select', pressed: true }).waitFor()
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))))
    await drag([red.left - 8, top], [red.right + 8, bottom], ['Control'])
    assert.deepEqual((await selection(page)).sort(), idsOf('Bolt 2', 'Plate', 'Bolt 1').sort())
    await page.getByRole('button', { name: 'Box select' }).click()
    assert.equal(await page.getByRole('button', { name: 'Box select' }).getAttribute('aria-pressed'), 'false')
  })

  it('the tree by keyboard: Enter one, Space adds, Shift+arrows extend from the anchor, Ctrl+A all', async () => {
    const row = (name: string) => page.locator(`[role="treeitem"][data-name="${name}"]`)
    assert.equal(await page.getByRole('tree').getAttribute('aria-multiselectable'), 'true')
    await row('Bolt 1').focus()
    await page.keyboard.press('Enter')
    assert.deepEqual(await selection(page), idsOf('Bolt 1'))
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Space')
    assert.deepEqual(await selection(page), idsOf('Bolt 1', 'Bolt 2'))
    await page.keyboard.press('Space')
    assert.deepEqual(await selection(page), idsOf('Bolt 1'))
    await page.keyboard.press('Space')
    // Anchor on Bolt 2 (the last picked): Shift+Down twice selects Bolt 2 … Bolt 3.
    await page.keyboard.press('Shift+ArrowDown')
    await page.keyboard.press('Shift+ArrowDown')
    assert.deepEqual(await selection(page), idsOf('Bolt 2', 'Plate', 'Bolt 3'))
    assert.deepEqual((await treeSelected(page)).sort(), idsOf('Bolt 2', 'Plate', 'Bolt 3').sort())
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.name), 'Bolt 3')
    await page.keyboard.press('Shift+ArrowUp')
    assert.deepEqual(await selection(page), idsOf('Bolt 2', 'Plate'))
    await page.keyboard.press('Control+a')
    assert.equal((await selection(page)).length, 6)
    await page.getByText('6 parts selected').waitFor()
    assert.deepEqual(errors, [])
  })
  it('Shift+click ranges from the anchor node, even after the tree was filtered', async () => {
    const row = (name: string) => page.locator(`[role="treeitem"][data-name="${name}"]`)
    const names = () =>
      page
        .locator('[role="treeitem"]')
        .evaluateAll((r) => r.map((x) => (x as HTMLElement).dataset.name ?? ''))
    const search = page.getByLabel('Search parts by name')
    await search.fill('BOLT')
    await until(async () => (await names()).length === 4, 'the filtered tree')
    await row('Bolt 3').click()
    await search.fill('')
    await until(async () => (await names()).length === 6, 'the whole tree again')
    const all = await names()
    const last = all[all.length - 1] as string
    await row(last).click({ modifiers: ['Shift'] })
    // From Bolt 3 (not from the row Bolt 3 had in the filtered tree) to the last row.
    const expected = all.slice(all.indexOf('Bolt 3')).filter((n) => n !== 'Row')
    assert.deepEqual((await selection(page)).sort(), idsOf(...expected).sort())
  })

  it('a part and its parent both selected: the part is outlined once, drawn as with the parent alone', async () => {
    await page.locator('.viewport canvas').focus()
    await page.keyboard.press('Escape')
    const camera = await page.locator('.viewport').getAttribute('data-camera')
    const none = await pixels(page)
    await page.locator('[role="treeitem"][data-name="Row"]').click()
    assert.deepEqual(await selection(page), idsOf('Row'))
    const parent = await pixels(page)
    assert.ok(count(parent, isOutline) > count(none, isOutline) + 200, 'the parts under Row are outlined')
    // Row and its five parts: each part is under two selected nodes.
    await page.keyboard.press('Control+a')
    assert.equal((await selection(page)).length, 6)
    const both = await pixels(page)
    assert.equal(await page.locator('.viewport').getAttribute('data-camera'), camera)
    // An outline drawn twice shows: its see-through pass (hidden edges) blends over itself.
    assert.equal(meanDiff(parent, both), 0, 'selecting the parts too changed how they are drawn')
    await page.locator('.viewport canvas').focus()
    await page.keyboard.press('Escape')
  })

  it('a part on a switched-off layer: a box does not take it, Fit all does not frame it', async () => {
    await page.locator('.viewport canvas').focus()
    await page.keyboard.press('Escape')
    await page.getByRole('button', { name: 'Fit all' }).click()
    const at = await drawnParts()
    const [green, blue] = [at.green as Rect, at.blue as Rect]
    // Plate (x = 0) and Frame (x = 5, the row's end) switched off.
    await apply({
      layers: {
        enabled: true,
        off: [
          { kind: 'group', name: 'Plate' },
          { kind: 'group', name: 'Frame' },
        ],
      },
    })
    await until(async () => {
      const shown = await partsOnCanvas(page)
      return !shown.blue && !shown.magenta && shown.green !== undefined
    }, 'Plate and Frame to be switched off')
    // A crossing box from where Plate was drawn to Bolt 2: only Bolt 2 is taken.
    await page.keyboard.down('Shift')
    await page.mouse.move(blue.x, blue.y)
    await page.mouse.down()
    await page.mouse.move(green.x, green.y, { steps: 8 })
    await page.mouse.up()
    await page.keyboard.up('Shift')
    assert.deepEqual(await selection(page), idsOf('Bolt 2'))
    // Fit all frames Bolt 1 (x = −5) to Bolt 3 (x = 2.5): centred on x = −1.25, not on the row's 0.
    await page.locator('.viewport canvas').focus()
    await page.keyboard.press('Escape')
    await page.getByRole('button', { name: 'Fit all' }).click()
    const target = await settledTarget()
    assert.ok(
      Math.abs((target[0] ?? 0) + SPACING / 2) < 1e-3 && Math.abs(target[1] ?? 1) < 1e-3,
      `Fit all framed the parts switched off too (target ${target})`,
    )
    await apply({ layers: { enabled: false, off: [] } })
    await page.getByRole('button', { name: 'Fit all' }).click()
    await drawnParts()
    assert.deepEqual(errors, [])
  })
})

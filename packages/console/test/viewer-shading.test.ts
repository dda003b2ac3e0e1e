// Exploded view, x-ray and layers in Chromium (software WebGL): each set from its panel with the
// keyboard, checked on the pixels (a part moved and came back exactly, ghosts blend linearly with
// their opacity, a layer off leaves none of its colour), saved, reloaded and restored to the same
// engine state, a configuration created through the API opening as it says, and a part ghosted
// while selected drawn like any ghost once deselected.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { apiSession } from './support/api-session.ts'
import { axe, blocking, describeFindings } from './support/axe.ts'
import { collectErrors, launch, signInAsAdmin } from './support/browser.ts'
import { count, isBlue, isOrange, isOutline, meanDiff, pixels } from './support/canvas-pixels.ts'
import { startTessera, type Tessera } from './support/server.ts'
import { levelsGlb } from './support/shading-models.ts'

const SHOTS = path.resolve(import.meta.dirname, '../../../docs/console')
let server: Tessera
let browser: Browser
let page: Page
let errors: string[]
const ids = new Map<string, string>()

interface Snap {
  explode: { enabled: boolean; distance: number }
  xray: { enabled: boolean; opacity: number; keep: string[]; others: unknown[] }
  layers: { enabled: boolean; off: { kind: string; name: string }[] }
}

async function snap(p: Page): Promise<Snap> {
  const all = (await p
    .locator('.viewport canvas')
    .evaluate((c) => (c as unknown as { tesseraSnapshot: () => unknown }).tesseraSnapshot())) as Snap
  return { explode: all.explode, xray: all.xray, layers: all.layers }
}

/** A slice of a view applied as restoring a saved view would (engine.apply, the canvas's test hook). */
async function apply(p: Page, view: Record<string, unknown>): Promise<void> {
  await p
    .locator('.viewport canvas')
    .evaluate((c, v) => (c as unknown as { tesseraApply(v: unknown): void }).tesseraApply(v), view)
}

async function selectedNodes(p: Page): Promise<string[]> {
  const all = (await p
    .locator('.viewport canvas')
    .evaluate((c) => (c as unknown as { tesseraSnapshot: () => unknown }).tesseraSnapshot())) as {
    selection: { nodes: string[] }
  }
  return all.selection.nodes
}

async function openTool(p: Page, label: string): Promise<void> {
  const button = p.getByRole('toolbar', { name: 'Viewer tools' }).getByRole('button', { name: label })
  if ((await button.getAttribute('aria-pressed')) !== 'true') {
    await button.focus()
    await p.keyboard.press('Enter')
  }
  await p.locator('.tool-panel h2', { hasText: label }).waitFor()
}

async function closeTool(p: Page): Promise<void> {
  await p.locator('.tool-panel input').first().focus()
  await p.keyboard.press('Escape')
  await p.locator('.tool-panel').waitFor({ state: 'detached' })
}

async function noBlockingAxe(p: Page, what: string): Promise<void> {
  const found = blocking(await axe(p, [], '.tool-panel'))
  assert.equal(found.length, 0, `${what}: ${describeFindings(found)}`)
}

async function openViewer(p: Page, name: string): Promise<void> {
  await p.getByRole('link', { name: 'Files', exact: true }).click()
  await p.locator(`.row[data-file="${name}"]`).click()
  await p.getByRole('link', { name: 'Open viewer' }).click()
  await p.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 120_000 })
  await p.waitForTimeout(300)
}

async function prepare(): Promise<void> {
  const api = await apiSession(server.baseUrl, 'admin', server.adminPassword)
  const files: Record<string, string> = {}
  for (const [name, ifc] of [
    ['levels.glb', false],
    ['storeys.glb', true],
  ] as const)
    files[name] = (await api.upload(name, await levelsGlb(ifc)))._id
  for (const id of Object.values(files)) {
    const deadline = Date.now() + 120_000
    while ((await api.call<{ file: { state: string } }>('GET', `/file/${id}`)).file.state !== 'ready') {
      assert.ok(Date.now() < deadline, 'the conversion did not finish')
      await new Promise((r) => setTimeout(r, 300))
    }
  }
  type Node = { id: string; name: string; children: Node[] }
  const { tree } = await api.call<{ tree: Node[] }>('GET', `/file/${files['levels.glb']}/scene-tree`)
  const walk = (nodes: Node[]): void => {
    for (const n of nodes) {
      ids.set(n.name, n.id)
      walk(n.children)
    }
  }
  walk(tree)
  await api.call('POST', '/file/configuration/', {
    file: files['levels.glb'],
    name: 'From API',
    explodedViewEnabled: true,
    explodedViewDistance: 0.3,
    transparencyEffectParameters: { alphaCoefficient: 0.4 },
    enabledEffects: [
      { type: 'xray', keep: [ids.get('Beam 1')] },
      { type: 'outline', width: 2 },
    ],
    layersEnabled: true,
    enabledLayers: [{ kind: 'group', name: 'Level 2', visible: false }],
  })
}

describe('explode, x-ray and layers', { timeout: 300_000 }, () => {
  before(async () => {
    server = await startTessera()
    await prepare()
    browser = await launch()
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
    errors = collectErrors(page, [401])
    await signInAsAdmin(page, server)
    await openViewer(page, 'levels.glb')
  })

  after(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('explode: on and the slider from the keyboard; the parts move out and come back exactly', async () => {
    const start = await pixels(page)
    await openTool(page, 'Explode')
    // The panel comes after the toolbar: Tab from its button reaches its first control.
    await page.keyboard.press('Tab')
    await page.keyboard.press('Space')
    await page.keyboard.press('Tab')
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('ArrowRight')
    const snapshot = await snap(page)
    assert.deepEqual(snapshot.explode, { enabled: true, distance: 0.6 })
    const moved = await pixels(page)
    assert.ok(meanDiff(start, moved) > 3, `the parts did not move on screen (${meanDiff(start, moved)})`)
    await noBlockingAxe(page, 'explode panel')
    await page.screenshot({ path: path.join(SHOTS, 'tool-explode.png') })
    await page.getByLabel('Exploded view').press('Space')
    assert.deepEqual((await snap(page)).explode, { enabled: false, distance: 0.6 })
    assert.equal(meanDiff(start, await pixels(page)), 0, 'the parts are not back where they were')
    // Esc in the panel closes it and gives focus back to the tool's button (not <body>), which is
    // now the toolbar's tab stop.
    await page.keyboard.press('Escape')
    await page.locator('.tool-panel').waitFor({ state: 'detached' })
    const focused = await page.evaluate(() => [
      document.activeElement?.textContent,
      document.activeElement?.getAttribute('tabindex'),
    ])
    assert.deepEqual(focused, ['Explode', '0'])
  })

  it('x-ray: everything but the selection is a ghost whose pixels blend linearly with the opacity', async () => {
    const opaque = await pixels(page)
    await page.locator('.tree .node', { hasText: 'Slab 2' }).click()
    await page.waitForTimeout(800)
    const selected = await pixels(page)
    await openTool(page, 'X-ray')
    await page.getByLabel('X-ray around selection').press('Space')
    const slider = page.getByRole('slider', { name: 'Ghost opacity' })
    await slider.press('Home')
    const none = await pixels(page)
    const beams = (i: number) => isOrange(opaque, i)
    assert.ok(count(opaque, isOrange) > 500, 'the beams are drawn')
    assert.equal(count(none, isOrange), 0, 'at opacity 0 a beam still shows')
    for (let i = 0; i < 5; i++) await slider.press('ArrowRight')
    const quarter = await pixels(page)
    for (let i = 0; i < 10; i++) await slider.press('ArrowRight')
    const threeQuarters = await pixels(page)
    const snapshot = (await snap(page)).xray
    assert.deepEqual(snapshot, { enabled: true, opacity: 0.75, keep: [ids.get('Slab 2')], others: [] })
    const ratio = meanDiff(quarter, none, beams) / meanDiff(threeQuarters, none, beams)
    assert.ok(ratio > 0.2 && ratio < 0.45, `a ghost at 25 % is not a third of one at 75 % (${ratio})`)
    // The kept Slab 2 (selected: lifted, bright blue) is drawn as it was, but where a ghost is in front.
    let kept = 0
    let same = 0
    for (let i = 0; i < selected.length; i += 4) {
      if ((selected[i + 2] ?? 0) < 150) continue
      kept++
      if ([0, 1, 2].every((c) => selected[i + c] === threeQuarters[i + c])) same++
    }
    assert.ok(
      kept > 1000 && same > 0.5 * kept,
      `the kept slab is not drawn as it was (${same} of ${kept} px)`,
    )
    await noBlockingAxe(page, 'x-ray panel')
    for (let i = 0; i < 10; i++) await slider.press('ArrowLeft')
    await page.screenshot({ path: path.join(SHOTS, 'tool-xray.png') })
    await page.getByLabel('X-ray around selection').press('Space')
    assert.equal(meanDiff(selected, await pixels(page)), 0, 'the materials did not come back')
    await closeTool(page)
  })

  it('layers: groups and materials listed with their parts; a layer off hides its parts', async () => {
    await openTool(page, 'Layers')
    const panel = page.locator('.tool-panel')
    for (const name of ['Level 1', 'Level 2', 'concrete', 'steel'])
      await panel.getByRole('checkbox', { name: new RegExp(`^${name} 2 parts$`) }).waitFor()
    const all = await pixels(page)
    assert.ok(count(all, isOrange) > 500, 'the steel beams are drawn')
    await panel.getByRole('checkbox', { name: /^steel/ }).press('Space')
    const noSteel = await pixels(page)
    assert.equal(count(noSteel, isOrange), 0, 'a steel beam is still drawn')
    assert.ok(count(noSteel, isBlue) >= count(all, isBlue), 'the slabs went too')
    assert.deepEqual((await snap(page)).layers, { enabled: true, off: [{ kind: 'material', name: 'steel' }] })
    assert.ok(count(noSteel, isOutline) > 100, 'the selected Slab 2 has its outline')
    await panel.getByRole('checkbox', { name: /^Level 2/ }).press('Space')
    const noLevel2 = await pixels(page)
    assert.ok(count(noLevel2, isBlue) < 0.8 * count(noSteel, isBlue), 'Level 2 is still drawn')
    assert.equal(count(noLevel2, isOutline), 0, "the hidden Slab 2's selection outline is still drawn")
    await noBlockingAxe(page, 'layers panel')
    await page.screenshot({ path: path.join(SHOTS, 'tool-layers.png') })
    await panel.getByRole('checkbox', { name: 'Use layers' }).press('Space')
    assert.equal(meanDiff(all, await pixels(page)), 0, 'turning layers off did not show everything')
    await closeTool(page)
  })

  it('the three saved in a view, reloaded and restored give the same engine state', async () => {
    await openTool(page, 'Explode')
    await page.getByLabel('Exploded view').press('Space')
    await openTool(page, 'X-ray')
    await page.getByLabel('X-ray around selection').press('Space')
    await openTool(page, 'Layers')
    await page
      .locator('.tool-panel')
      .getByRole('checkbox', { name: /^steel/ })
      .press('Space')
    const saved = await snap(page)
    assert.equal(saved.explode.enabled && saved.xray.enabled && saved.layers.enabled, true)
    await page.getByRole('tab', { name: /Views/ }).click()
    await page.getByLabel('View name').fill('Shaded')
    await page.getByRole('button', { name: 'Save current view' }).click()
    await page.getByRole('button', { name: 'Restore Shaded' }).waitFor()
    await page.reload()
    await page.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 120_000 })
    assert.equal((await snap(page)).explode.enabled, false)
    await page.getByRole('tab', { name: /Views/ }).click()
    await page.getByRole('button', { name: 'Restore Shaded' }).click()
    assert.deepEqual(await snap(page), saved)
  })

  it('a configuration created through the API opens as it says (another client’s effect kept)', async () => {
    await page.getByRole('button', { name: 'Restore From API' }).click()
    assert.deepEqual(await snap(page), {
      explode: { enabled: true, distance: 0.3 },
      xray: {
        enabled: true,
        opacity: 0.4,
        keep: [ids.get('Beam 1')],
        others: [{ type: 'outline', width: 2 }],
      },
      layers: { enabled: true, off: [{ kind: 'group', name: 'Level 2' }] },
    })
  })

  it('x-ray: a part ghosted while selected is drawn like any ghost once deselected (not left lit)', async () => {
    // The screen's own view state is left behind here: the next test opens another model.
    const xray = (enabled: boolean) => ({ enabled, opacity: 0.5, keep: [ids.get('Beam 1')], others: [] })
    await apply(page, {
      explode: { enabled: false, distance: 0 },
      layers: { enabled: false, off: [] },
      xray: xray(false),
    })
    await page.locator('.viewport canvas').focus()
    await page.keyboard.press('Escape')
    const camera = await page.locator('.viewport').getAttribute('data-camera')
    // Beam 1 kept, Slab 2 a ghost, nothing selected.
    await apply(page, { xray: xray(true) })
    const ghost = await pixels(page)
    await apply(page, { xray: xray(false) })
    await page.getByRole('tab', { name: 'Parts' }).click()
    await page.locator('.tree .node', { hasText: 'Slab 2' }).click()
    assert.deepEqual(await selectedNodes(page), [ids.get('Slab 2')])
    // Slab 2 becomes a ghost while it is selected (lifted, outlined) ...
    await apply(page, { xray: xray(true) })
    const selectedGhost = await pixels(page)
    assert.ok(meanDiff(ghost, selectedGhost) > 0, 'the selected ghost shows its selection')
    // ... and once deselected it is the same ghost as one never selected.
    await page.locator('.viewport canvas').focus()
    await page.keyboard.press('Escape')
    assert.deepEqual(await selectedNodes(page), [])
    assert.equal(await page.locator('.viewport').getAttribute('data-camera'), camera)
    const after = await pixels(page)
    assert.equal(meanDiff(ghost, after), 0, `the deselected ghost is drawn lit (${meanDiff(ghost, after)})`)
    await apply(page, { xray: xray(false) })
  })

  it('IFC: storeys and classes are the layers', async () => {
    await openViewer(page, 'storeys.glb')
    await openTool(page, 'Layers')
    const panel = page.locator('.tool-panel')
    for (const [legend, names] of [
      ['Storeys', ['Level 1', 'Level 2']],
      ['Classes', ['IfcBeam', 'IfcSlab']],
    ] as const) {
      const group = panel.getByRole('group', { name: legend })
      for (const name of names)
        await group.getByRole('checkbox', { name: new RegExp(`^${name} 2 parts$`) }).waitFor()
    }
    const all = await pixels(page)
    assert.ok(count(all, isOrange) > 500, 'the beams are drawn')
    await panel.getByRole('checkbox', { name: /^IfcBeam/ }).press('Space')
    const noBeams = await pixels(page)
    assert.equal(count(noBeams, isOrange), 0, 'an IfcBeam is still drawn')
    await panel
      .getByRole('group', { name: 'Storeys' })
      .getByRole('checkbox', { name: /^Level 2/ })
      .press('Space')
    assert.ok(
      count(await pixels(page), isBlue) < 0.8 * count(noBeams, isBlue),
      'the storey Level 2 is still drawn',
    )
    // The dark theme: the panel's colours still pass (axe), and a screenshot for the docs.
    await page.getByLabel('Theme').selectOption('dark')
    await page.waitForTimeout(300)
    await noBlockingAxe(page, 'layers panel, dark')
    await page.screenshot({ path: path.join(SHOTS, 'tool-layers-dark.png') })
    await page.getByLabel('Theme').selectOption('system')
    assert.deepEqual(errors, [])
  })
})

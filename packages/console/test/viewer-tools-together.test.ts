// The viewer's tools combined (engine side): section and x-ray switched off together by a restored
// view leave nothing cut; moving the x-ray opacity slider makes no new materials; no section cap is
// drawn for a part on a switched-off layer or hidden; the caps follow the parts of an exploded view.
// Views are applied through the canvas's test hook (engine.apply, what restoring a saved view calls);
// what the user sees is read from the pixels.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { apiSession } from './support/api-session.ts'
import { collectErrors, launch, signInAsAdmin } from './support/browser.ts'
import { count, pixels } from './support/canvas-pixels.ts'
import { cutGlb, pixel } from './support/section.ts'
import { startTessera, type Tessera } from './support/server.ts'

let server: Tessera
let browser: Browser
let page: Page

const reddish = ([r, g, b]: number[]) => (r ?? 0) > 100 && (r ?? 0) > 2 * ((g ?? 0) + (b ?? 0))
const bluish = ([r, g, b]: number[]) => (b ?? 0) > 100 && (b ?? 0) > 2 * ((r ?? 0) + (g ?? 0))
const Z_PLANE = { id: 'z', normal: [0, 0, -1], constant: 0, enabled: true, capColor: '#d4a017' }
const SECTION_ON = { enabled: true, planes: [Z_PLANE], box: null }
const SECTION_OFF = { enabled: false, planes: [], box: null }
const xray = (enabled: boolean, opacity = 0.5) => ({ enabled, opacity, keep: [], others: [] })
/** A cap colour found nowhere else on the canvas (caps are unlit: drawn in exactly this colour). */
const CAP = '#00c040'
const capAt = (d: Uint8Array, i: number) =>
  Math.abs((d[i] ?? 0) - 0x00) < 24 &&
  Math.abs((d[i + 1] ?? 0) - 0xc0) < 24 &&
  Math.abs((d[i + 2] ?? 0) - 0x40) < 24
const isCap = (rgb: number[]) => capAt(new Uint8Array(rgb), 0)
const cut = (id: string, normal: number[], constant: number) => ({
  enabled: true,
  planes: [{ id, normal, constant, enabled: true, capColor: CAP }],
  box: null,
})
const LAYERS_OFF = { enabled: false, off: [] }

function apply(view: Record<string, unknown>): Promise<void> {
  return page
    .locator('canvas')
    .evaluate((c, v) => (c as unknown as { tesseraApply(v: unknown): void }).tesseraApply(v), view)
}

/** The camera once it stands still (Fit all flies there): the same pose in three reads 200 ms apart. */
async function settled(): Promise<void> {
  let last = ''
  let same = 0
  for (let i = 0; i < 50 && same < 2; i++) {
    await page.waitForTimeout(200)
    const now = (await page.locator('.viewport').getAttribute('data-camera')) ?? ''
    same = now === last ? same + 1 : 0
    last = now
  }
  assert.equal(same, 2, 'the camera never stopped')
}

function materials(): Promise<[string, number][]> {
  return page
    .locator('canvas')
    .evaluate((c) => (c as unknown as { tesseraMaterials(): [string, number][] }).tesseraMaterials())
}

describe('viewer tools together', { timeout: 120_000 }, () => {
  before(async () => {
    server = await startTessera()
    const api = await apiSession(server.baseUrl, 'admin', server.adminPassword)
    await api.uploadReady('cut.glb', await cutGlb())
    browser = await launch()
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
    collectErrors(page, [401])
    await signInAsAdmin(page, server)
    await page.getByRole('link', { name: 'Files', exact: true }).click()
    await page.locator('.row[data-file="cut.glb"]').click()
    await page.getByRole('link', { name: 'Open viewer' }).click()
    await page.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 120_000 })
    await page.waitForTimeout(300)
  })

  after(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('section on, x-ray on, then a view with both off: nothing stays cut', async () => {
    assert.ok(reddish(await pixel(page)), 'the near wall is in front before the cut')
    await apply({ section: SECTION_ON })
    await apply({ xray: xray(true) })
    assert.ok(
      (await materials()).every(([, planes]) => planes === 1),
      'the ghosts are cut',
    )
    // A restored view with both off: section first, then x-ray (the engine's order).
    await apply({ section: SECTION_OFF, xray: xray(false) })
    const left = await materials()
    assert.deepEqual(
      left.filter(([, planes]) => planes > 0),
      [],
      'no material of the model keeps a plane',
    )
    await page.waitForTimeout(200)
    assert.ok(reddish(await pixel(page)), 'the near wall is whole again')
  })

  it('moving the x-ray opacity slider makes no new materials', async () => {
    await apply({ xray: xray(true, 0.5) })
    const ghosts = (await materials()).map(([uuid]) => uuid)
    for (const opacity of [0.4, 0.3, 0.2]) await apply({ xray: xray(true, opacity) })
    assert.deepEqual(
      (await materials()).map(([uuid]) => uuid),
      ghosts,
      'the same ghost materials, their opacity changed',
    )
    const snapshot = await page
      .locator('canvas')
      .evaluate((c) =>
        (c as unknown as { tesseraSnapshot(): { xray: { opacity: number } } }).tesseraSnapshot(),
      )
    assert.equal(snapshot.xray.opacity, 0.2)
    await apply({ xray: xray(false) })
  })

  it('no section cap where the cut part is on a switched-off layer, nor where it is hidden', async () => {
    // Keeps z ≤ −1: the near wall goes, the far wall is cut through its middle and capped (as is
    // the floor, a thin strip); the canvas centre is on the far wall's cap.
    await apply({ section: cut('far', [0, 0, -1], -1) })
    assert.ok(isCap(await pixel(page)), 'the cut through the far wall is capped')
    const capped = count(await pixels(page), capAt)
    await apply({ layers: { enabled: true, off: [{ kind: 'group', name: 'Far wall' }] } })
    const layerOff = await pixel(page)
    assert.ok(!isCap(layerOff) && !bluish(layerOff), `the far wall's layer is off, its cap too (${layerOff})`)
    const floorOnly = count(await pixels(page), capAt)
    assert.ok(floorOnly < 0.3 * capped, `the far wall's cap is still drawn (${floorOnly} of ${capped} px)`)
    await apply({ layers: LAYERS_OFF })
    assert.ok(isCap(await pixel(page)), 'the layer back on: its cap too')
    // Hidden from the tree: the cap goes with the wall, and comes back with it.
    await page.getByRole('button', { name: 'Hide Far wall' }).click()
    const hidden = await pixel(page)
    assert.ok(!isCap(hidden) && !bluish(hidden), `the far wall is hidden, its cap too (${hidden})`)
    await page.getByRole('button', { name: 'Show Far wall' }).click()
    assert.ok(isCap(await pixel(page)), 'the wall shown again: its cap too')
    await apply({ section: SECTION_OFF })
  })

  it('exploded with a section: the cut of each part that moved out is capped', async () => {
    // Keeps x ≤ 0: the walls and the floor are cut across, their caps face the camera (+x).
    await apply({ section: cut('x', [-1, 0, 0], 0) })
    const together = count(await pixels(page), capAt)
    assert.ok(together > 2000, `the three cuts are capped (${together} px)`)
    // A model radius out: each part's cut is beyond the model's bounds as loaded.
    await apply({ explode: { enabled: true, distance: 1 } })
    await page.getByRole('button', { name: 'Fit all' }).click()
    await settled()
    const shot = await pixels(page)
    const apart = count(shot, capAt)
    // Framed twice as wide, each cap has about a quarter of its pixels.
    assert.ok(apart > 0.12 * together, `the exploded parts' cuts are not capped (${apart} of ${together} px)`)
    // And the caps are where the parts went: the floor below the walls, the walls apart.
    const width = await page.locator('.viewport canvas').evaluate((c) => (c as HTMLCanvasElement).width)
    const height = shot.length / 4 / width
    const rows: number[] = []
    for (let i = 0; i < shot.length; i += 4) if (capAt(shot, i)) rows.push(Math.floor(i / 4 / width))
    const spread = (rows.at(-1) ?? 0) - (rows[0] ?? 0)
    assert.ok(
      spread > 0.3 * height,
      `the caps are not spread out with the parts (${spread} of ${height} rows)`,
    )
    await apply({ explode: { enabled: false, distance: 1 }, section: SECTION_OFF })
    await page.getByRole('button', { name: 'Fit all' }).click()
    await settled()
  })
})

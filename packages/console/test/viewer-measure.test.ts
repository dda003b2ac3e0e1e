// The measure tool in Chromium (software WebGL) on a 2 × 1 × 0.5 m block: clicks near corners snap
// to the exact corners (a distance of 2.000 m, a right angle of 90.0°), hovering snaps to an edge
// but not to the diagonal splitting a face; Esc drops a dimension in progress; a saved view and a
// configuration created through the API restore the same dimensions and labels; deleting and
// hiding with the keyboard; a distance placed with the keyboard only (the arrows move a cursor,
// Enter places), saved and restored as the pointer's; axe on the open panel in both themes;
// docs/console/tool-measure*.png.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { apiSession } from './support/api-session.ts'
import { axe, blocking, describeFindings } from './support/axe.ts'
import { collectErrors, launch, signInAsAdmin } from './support/browser.ts'
import { startTessera, type Tessera } from './support/server.ts'
import { blockGlb } from './support/viewer-models.ts'

const SHOTS = path.resolve(import.meta.dirname, '../../../docs/console')
type V3 = [number, number, number]

// Corners seen from the fitted camera (direction (1, 0.8, 1.2)): A is the one nearest to it.
const A: V3 = [1, 0.5, 0.25]
const B: V3 = [-1, 0.5, 0.25]
const D: V3 = [1, -0.5, 0.25]
const FROM_API = [
  {
    type: 'distance',
    id: 'api-d',
    points: [
      [-1, -0.5, 0.25],
      [1, -0.5, 0.25],
    ],
  },
  {
    type: 'angle',
    id: 'api-a',
    points: [
      [-1, 0.5, -0.25],
      [-1, 0.5, 0.25],
      [1, 0.5, 0.25],
    ],
  },
  { type: 'radius', id: 'api-r', points: [[0, 0, 0]] },
  {
    type: 'distance',
    id: 'api-bad',
    points: [
      [0, 0, 0],
      [1, 'x', 0],
    ],
  },
]

interface Snapshot {
  camera: { pose: { position: V3; target: V3 } }
  measure: {
    enabled: boolean
    quotations: { type: string; id: string; points: V3[] }[]
    labels: string[]
    snap: { kind: string; point: V3 } | null
  }
}

let server: Tessera
let browser: Browser
let page: Page
let errors: string[]

function snapshot(p: Page): Promise<Snapshot> {
  return p
    .locator('.viewport canvas')
    .evaluate((c) => (c as unknown as { tesseraSnapshot(): Snapshot }).tesseraSnapshot())
}

const sub = (a: V3, b: V3): V3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
const dot = (a: V3, b: V3) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
const cross = (a: V3, b: V3): V3 => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
]
const unit = (a: V3): V3 => {
  const l = Math.hypot(...a)
  return [a[0] / l, a[1] / l, a[2] / l]
}
/** A world point on the page, projected as the viewer's camera does (45° vertical field, Y up). */
async function onScreen(p: Page, point: V3): Promise<{ x: number; y: number }> {
  const camera = (await snapshot(p)).camera.pose
  const box = await p.locator('.viewport canvas').boundingBox()
  assert.ok(box)
  const forward = unit(sub(camera.target, camera.position))
  const right = unit(cross(forward, [0, 1, 0]))
  const up = cross(right, forward)
  const d = sub(point, camera.position)
  const t = Math.tan((22.5 * Math.PI) / 180)
  const x = dot(d, right) / (dot(d, forward) * t * (box.width / box.height))
  const y = dot(d, up) / (dot(d, forward) * t)
  return { x: box.x + ((x + 1) / 2) * box.width, y: box.y + ((1 - y) / 2) * box.height }
}

/** A point `px` pixels from a corner towards the block's centre on screen (on the model, near the corner). */
async function inward(p: Page, corner: V3, px: number): Promise<{ x: number; y: number }> {
  const c = await onScreen(p, corner)
  const o = await onScreen(p, [0, 0, 0])
  const l = Math.hypot(o.x - c.x, o.y - c.y)
  return { x: c.x + ((o.x - c.x) / l) * px, y: c.y + ((o.y - c.y) / l) * px }
}

/** As inward(), for the pointer: nothing else may cover the canvas there. */
async function near(p: Page, corner: V3, px = 6): Promise<{ x: number; y: number }> {
  const at = await inward(p, corner, px)
  assert.ok(await onCanvas(p, at), `${JSON.stringify(corner)} is under another element`)
  return at
}

/** The keyboard's measuring cursor (client coordinates); hidden, it is at the canvas's centre. */
function cursorAt(p: Page): Promise<{ x: number; y: number }> {
  return p.evaluate(() => {
    const canvas = document.querySelector('.viewport canvas')?.getBoundingClientRect()
    const cursor = document.querySelector<HTMLElement>('.measure-cursor')
    if (!canvas || !cursor) throw new Error('no canvas or no measure cursor')
    if (cursor.hidden) return { x: canvas.left + canvas.width / 2, y: canvas.top + canvas.height / 2 }
    const r = cursor.getBoundingClientRect()
    return { x: r.left, y: r.top }
  })
}

/** Arrow keys (Shift for the long way) until the cursor is within half a step (4 px) of `to`. */
async function keyCursorTo(p: Page, to: { x: number; y: number }): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const at = await cursorAt(p)
    const [dx, dy] = [to.x - at.x, to.y - at.y]
    if (Math.abs(dx) <= 4 && Math.abs(dy) <= 4) return
    const alongX = Math.abs(dx) > 4
    const d = alongX ? dx : dy
    const key = alongX ? (d > 0 ? 'ArrowRight' : 'ArrowLeft') : d > 0 ? 'ArrowDown' : 'ArrowUp'
    await p.keyboard.press(Math.abs(d) >= 40 ? `Shift+${key}` : key)
  }
  assert.fail(`the cursor did not reach ${JSON.stringify(to)}: ${JSON.stringify(await cursorAt(p))}`)
}

/**
 * The camera no longer moves (a standard view's flight is over): the same pose for 400 ms. Two equal
 * samples were not enough on a loaded machine, where a flight can start a frame or two late.
 */
async function still(p: Page): Promise<void> {
  let last = ''
  let same = 0
  for (let i = 0; i < 80; i++) {
    const pose = JSON.stringify((await snapshot(p)).camera.pose)
    same = pose === last ? same + 1 : 0
    if (same >= 4) return
    last = pose
    await p.waitForTimeout(100)
  }
}

function focused(p: Page): Promise<string> {
  return p.evaluate(() =>
    document.activeElement?.tagName === 'CANVAS'
      ? 'canvas'
      : (document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? ''),
  )
}

/** Nothing (the tool panel, the toolbar) covers the canvas at this point. */
function onCanvas(p: Page, at: { x: number; y: number }): Promise<boolean> {
  return p.evaluate(([x, y]) => document.elementFromPoint(x, y)?.tagName === 'CANVAS', [at.x, at.y] as const)
}

function assertNear(actual: V3[], expected: V3[], what: string): void {
  assert.equal(actual.length, expected.length, what)
  for (const [i, p] of actual.entries())
    for (const [k, v] of p.entries())
      assert.ok(Math.abs(v - (expected[i]?.[k] ?? Number.NaN)) < 1e-4, `${what}: ${JSON.stringify(actual)}`)
}

async function ready(p: Page): Promise<void> {
  await p.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 120_000 })
  await p.waitForTimeout(300)
}

async function checkAxe(p: Page, theme: string): Promise<void> {
  const findings = blocking(await axe(p, [], '.viewport'))
  assert.deepEqual(findings, [], `${theme}: ${describeFindings(findings)}`)
}

describe('measure tool in Chromium', { timeout: 300_000 }, () => {
  before(async () => {
    server = await startTessera()
    // Through the API before the browser signs in (its session would supersede this one).
    const api = await apiSession(server.baseUrl, 'admin', server.adminPassword)
    const file = (await api.uploadReady('block.glb', await blockGlb()))._id
    await api.call('POST', '/file/configuration/', {
      file,
      name: 'From API',
      quotationsEnabled: true,
      enabledQuotations: FROM_API,
    })
    browser = await launch()
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
    errors = collectErrors(page, [401])
    await signInAsAdmin(page, server)
    await page.getByRole('link', { name: 'Files', exact: true }).click()
    await page.locator('.row[data-file="block.glb"]').click()
    await page.getByRole('link', { name: 'Open viewer' }).click()
    await ready(page)
  })

  after(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('snaps to corners and edges (not a face diagonal), measures 2.000 m and 90.0°', async () => {
    await page.locator('.viewport canvas').focus()
    await page.keyboard.press('m')
    const panel = page.getByRole('region', { name: 'Measure' })
    await panel.waitFor()
    await panel.getByRole('button', { name: 'Distance' }).click()
    // The panel covers the canvas's top left: zoom out (the − key) until the far corner is clear of it.
    await page.locator('.viewport canvas').focus()
    for (let i = 0; i < 5 && !(await onCanvas(page, await onScreen(page, [-1.1, 0.6, 0.25]))); i++)
      await page.keyboard.press('-')
    // The middle of the front face lies on the diagonal splitting it in two triangles: a face point.
    const front = await onScreen(page, [0, 0, 0.25])
    await page.mouse.move(front.x, front.y)
    assert.equal((await snapshot(page)).measure.snap?.kind, 'face')
    // 5 px below the middle of the top front edge: that edge.
    const edge = await onScreen(page, [0, 0.5, 0.25])
    await page.mouse.move(edge.x, edge.y + 5)
    const onEdge = (await snapshot(page)).measure.snap
    assert.equal(onEdge?.kind, 'edge')
    assert.ok(
      Math.abs((onEdge?.point[1] ?? 0) - 0.5) < 1e-4 && Math.abs((onEdge?.point[2] ?? 0) - 0.25) < 1e-4,
    )
    // 6 px off the corners: the corners themselves.
    for (const corner of [A, B]) {
      const at = await near(page, corner)
      await page.mouse.move(at.x, at.y)
      await page.mouse.click(at.x, at.y)
    }
    let s = await snapshot(page)
    assert.equal(s.measure.quotations.length, 1)
    assertNear(s.measure.quotations[0]?.points ?? [], [A, B], 'distance')
    assert.deepEqual(s.measure.labels, ['2.000 m'])
    await panel.getByRole('button', { name: 'Angle' }).click()
    for (const corner of [B, A, D]) {
      const at = await near(page, corner)
      await page.mouse.click(at.x, at.y)
    }
    s = await snapshot(page)
    assertNear(s.measure.quotations[1]?.points ?? [], [B, A, D], 'angle')
    assert.deepEqual(s.measure.labels, ['2.000 m', '90.0°'])
    assert.equal(s.measure.enabled, true)
    assert.deepEqual(await page.locator('.measure-label:not(.preview)').allTextContents(), [
      '2.000 m',
      '90.0°',
    ])
    await panel.locator('li', { hasText: 'Distance' }).getByText('2.000 m').waitFor()
    await panel.locator('li', { hasText: 'Angle' }).getByText('90.0°').waitFor()
    // Esc drops a dimension in progress (one point placed), nothing is added.
    const first = await near(page, D)
    await page.mouse.click(first.x, first.y)
    await panel.getByText('Click the vertex of the angle.').waitFor()
    await page.keyboard.press('Escape')
    await panel.getByText('Click the first point on the model.').waitFor()
    assert.equal((await snapshot(page)).measure.quotations.length, 2)
    // Hovering near a free corner shows the vertex snap marker in the screenshots.
    const free = await near(page, [1, 0.5, -0.25], 5)
    await page.mouse.move(free.x, free.y)
    assert.equal((await snapshot(page)).measure.snap?.kind, 'vertex')
    await checkAxe(page, 'light')
    await page.screenshot({ path: path.join(SHOTS, 'tool-measure.png') })
    await page.emulateMedia({ colorScheme: 'dark' })
    await page.waitForTimeout(300)
    await checkAxe(page, 'dark')
    await page.screenshot({ path: path.join(SHOTS, 'tool-measure-dark.png') })
    await page.emulateMedia({ colorScheme: 'light' })
  })

  it('a saved view restores the same dimensions and labels after a reload', async () => {
    const before = (await snapshot(page)).measure
    await page.getByRole('tab', { name: /Views/ }).click()
    await page.getByLabel('View name').fill('Measured')
    await page.getByRole('button', { name: 'Save current view' }).click()
    await page.getByRole('button', { name: 'Restore Measured' }).waitFor()
    await page.reload()
    await ready(page)
    assert.deepEqual((await snapshot(page)).measure.quotations, [])
    await page.getByRole('tab', { name: /Views/ }).click()
    await page.getByRole('button', { name: 'Restore Measured' }).click()
    const after = (await snapshot(page)).measure
    assert.deepEqual({ ...after, snap: null }, { ...before, snap: null })
    assert.deepEqual(await page.locator('.measure-label').allTextContents(), ['2.000 m', '90.0°'])
  })

  it('a configuration created through the API opens as it says (malformed entries skipped)', async () => {
    await page.getByRole('button', { name: 'Restore From API' }).click()
    const { measure } = await snapshot(page)
    assert.equal(measure.enabled, true)
    assert.deepEqual(measure.quotations, FROM_API.slice(0, 2))
    assert.deepEqual(measure.labels, ['2.000 m', '90.0°'])
  })

  it('with the keyboard: M opens the panel, Tab reaches Delete and Show dimensions, Esc closes', async () => {
    const canvas = page.locator('.viewport canvas')
    await canvas.focus()
    await page.keyboard.press('m')
    const panel = page.getByRole('region', { name: 'Measure' })
    await panel.waitFor()
    const tabTo = async (name: string) => {
      for (let i = 0; i < 20 && (await focused(page)) !== name; i++) await page.keyboard.press('Tab')
      assert.equal(await focused(page), name)
    }
    await tabTo('Delete Distance 2.000 m')
    await page.keyboard.press('Enter')
    await panel.getByRole('button', { name: 'Delete Distance 2.000 m' }).waitFor({ state: 'detached' })
    let { measure } = await snapshot(page)
    assert.deepEqual(
      measure.quotations.map((q) => q.id),
      ['api-a'],
    )
    assert.deepEqual(await page.locator('.measure-label').allTextContents(), ['90.0°'])
    // Show: the camera turns to the angle's centre (the mean of its points).
    await tabTo('Show Angle 90.0°')
    await page.keyboard.press('Enter')
    const centre: V3 = [-1 / 3, 0.5, 0.25 / 3]
    const framed = async () => {
      const t = (await snapshot(page)).camera.pose.target
      return t.every((v, k) => Math.abs(v - (centre[k] ?? 0)) < 1e-3)
    }
    for (let i = 0; i < 40 && !(await framed()); i++) await page.waitForTimeout(100)
    assert.ok(await framed(), JSON.stringify((await snapshot(page)).camera))
    await panel.getByLabel('Show dimensions').focus()
    await page.keyboard.press('Space')
    ;({ measure } = await snapshot(page))
    assert.equal(measure.enabled, false)
    assert.equal(await page.locator('.measure-labels').isVisible(), false)
    // Opened by its letter, the panel gives the focus back to the 3D view when Esc closes it.
    await page.keyboard.press('Escape')
    await panel.waitFor({ state: 'detached' })
    assert.equal(await focused(page), 'canvas')
    assert.deepEqual(errors, [])
  })

  it('with the keyboard only: M, Enter on Distance, arrows and Enter place a distance; a saved view restores it', async () => {
    await page.locator('.viewport canvas').focus()
    await page.keyboard.press('7')
    await still(page)
    await page.keyboard.press('m')
    const panel = page.getByRole('region', { name: 'Measure' })
    await panel.waitFor()
    // M put the focus on the panel's first control; choosing the mode puts it in the 3D view.
    assert.equal(await focused(page), 'Distance')
    await page.keyboard.press('Enter')
    assert.equal(await focused(page), 'canvas')
    const pose = (await snapshot(page)).camera.pose
    // A, then D: 1 m apart. The cursor is steered 5 px inside each corner and snaps to it.
    await keyCursorTo(page, await inward(page, A, 5))
    let s = await snapshot(page)
    assert.deepEqual(s.camera.pose, pose, 'the arrows moved the cursor, not the camera')
    assert.equal(s.measure.snap?.kind, 'vertex')
    assertNear([s.measure.snap?.point ?? [0, 0, 0]], [A], 'the snap under the cursor')
    await page.keyboard.press('Enter')
    await panel.getByText('Point 1 placed on a corner. Click the second point.').waitFor()
    await keyCursorTo(page, await inward(page, D, 5))
    // The dimension in progress follows the cursor, with its value.
    await page.locator('.measure-label.preview', { hasText: '1.000 m' }).waitFor()
    await checkAxe(page, 'light, the keyboard cursor drawn')
    await page.screenshot({ path: path.join(SHOTS, 'tool-measure-keyboard.png') })
    await page.keyboard.press('Space')
    await panel.getByText('Distance 1.000 m added.').waitFor()
    s = await snapshot(page)
    assert.equal(s.measure.enabled, true)
    assert.equal(s.measure.quotations.length, 2)
    assertNear(s.measure.quotations[1]?.points ?? [], [A, D], 'keyboard distance')
    assert.deepEqual(s.measure.labels, ['90.0°', '1.000 m'])
    await panel.locator('li', { hasText: 'Distance' }).getByText('1.000 m').waitFor()
    // Over the background (the cursor stops at the canvas's top right corner) Enter places nothing.
    for (let i = 0; i < 35; i++) await page.keyboard.press('Shift+ArrowUp')
    for (let i = 0; i < 35; i++) await page.keyboard.press('Shift+ArrowRight')
    assert.equal((await snapshot(page)).measure.snap, null)
    await page.keyboard.press('Enter')
    await panel.getByText('Nothing of the model there: no point placed.').waitFor()
    assert.equal((await snapshot(page)).measure.quotations.length, 2)
    // Esc leaves the mode (nothing in progress).
    await page.keyboard.press('Escape')
    await panel.getByText('Choose Distance or Angle').waitFor()
    const before = (await snapshot(page)).measure
    await page.getByRole('tab', { name: /Views/ }).click()
    await page.getByLabel('View name').fill('Keyboard')
    await page.getByRole('button', { name: 'Save current view' }).click()
    await page.getByRole('button', { name: 'Restore Keyboard' }).waitFor()
    await page.reload()
    await ready(page)
    assert.deepEqual((await snapshot(page)).measure.quotations, [])
    await page.getByRole('tab', { name: /Views/ }).click()
    await page.getByRole('button', { name: 'Restore Keyboard' }).click()
    const after = (await snapshot(page)).measure
    assert.deepEqual({ ...after, snap: null }, { ...before, snap: null })
    assert.deepEqual(await page.locator('.measure-label').allTextContents(), ['90.0°', '1.000 m'])
    assert.deepEqual(errors, [])
  })
})

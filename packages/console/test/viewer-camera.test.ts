// The Camera tool in Chromium (software WebGL): projection, field-of-view preset, up vector and near
// plane set in the panel survive save → reload → restore (read back from the three.js camera through
// tesseraSnapshot()); a configuration created through the API opens as it says; disableCamera leaves
// the camera alone; standard views by key and by the view cube; the cube's Top and Bottom labels
// read upright seen from above and below; C opens the panel with the focus in it and closes it with
// the focus back in the 3D view; a fixed near plane cuts the model.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { apiSession } from './support/api-session.ts'
import { axe, blocking, describeFindings } from './support/axe.ts'
import { collectErrors, launch, signInAsAdmin } from './support/browser.ts'
import { startTessera, type Tessera } from './support/server.ts'
import { roomGlb } from './support/viewer-models.ts'

const SHOTS = path.resolve(import.meta.dirname, '../../../docs/console')

interface CameraSnapshot {
  pose: { position: number[]; target: number[] }
  projection: string
  fovIndex: number
  up: string
  near: number | null
  disabled: boolean
}

let server: Tessera
let browser: Browser
let page: Page
let errors: string[]

async function snapshot(p: Page): Promise<CameraSnapshot> {
  const all = await p
    .locator('.viewport canvas')
    .evaluate((c) => (c as unknown as { tesseraSnapshot: () => Record<string, unknown> }).tesseraSnapshot())
  return all.camera as CameraSnapshot
}

/**
 * The camera once it has stopped moving: the same pose three times 300 ms apart (a fly-to lasts
 * 600 ms; a frame of software WebGL on a busy machine can take longer than one interval).
 */
async function settled(p: Page): Promise<CameraSnapshot> {
  let last = ''
  let same = 0
  for (let i = 0; i < 60; i++) {
    await p.waitForTimeout(300)
    const now = await snapshot(p)
    same = JSON.stringify(now.pose) === last ? same + 1 : 0
    if (same === 2) return now
    last = JSON.stringify(now.pose)
  }
  throw new Error('the camera never stopped')
}

function near(a: number[], b: number[], tolerance = 1e-3): boolean {
  return a.length === b.length && a.every((v, i) => Math.abs(v - (b[i] ?? Number.NaN)) < tolerance)
}

/** The unit direction from the target to the camera. */
function direction(s: CameraSnapshot): number[] {
  const d = s.pose.position.map((v, i) => v - (s.pose.target[i] ?? 0))
  const length = Math.hypot(...d)
  return d.map((v) => v / length)
}

/** Wait for a condition of the drawn frame (software WebGL: a frame may take a while under load). */
async function until(test: () => Promise<boolean>, what: string, timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 150))
  }
}

/** How many canvas pixels are the wall's red. */
function redPixels(p: Page): Promise<number> {
  return p.evaluate(() => {
    const source = document.querySelector('.viewport canvas') as HTMLCanvasElement
    const copy = document.createElement('canvas')
    copy.width = source.width
    copy.height = source.height
    const ctx = copy.getContext('2d') as CanvasRenderingContext2D
    ctx.drawImage(source, 0, 0)
    const data = ctx.getImageData(0, 0, copy.width, copy.height).data
    let n = 0
    for (let i = 0; i < data.length; i += 4)
      if ((data[i] ?? 0) > 80 && (data[i + 1] ?? 0) < 40 && (data[i + 2] ?? 0) < 40) n++
    return n
  })
}

/**
 * How a face of the view cube lies on the screen: where its own x (the label's reading direction)
 * and y (the label's downward) point, and whether it faces the viewer; and the screen x of its
 * label's first and last letters.
 */
function faceOnScreen(p: Page, view: string) {
  return p.evaluate((name) => {
    const face = document.querySelector(`.view-cube [data-view="${name}"]`) as HTMLElement
    const body = face.parentElement as HTMLElement
    const m = new DOMMatrix(getComputedStyle(body).transform).multiply(
      new DOMMatrix(getComputedStyle(face).transform),
    )
    const axis = (x: number, y: number, z: number) => {
      const a = m.transformPoint(new DOMPoint(x, y, z, 0))
      return [a.x, a.y, a.z].map((v) => Math.round(v * 1000) / 1000)
    }
    const text = face.firstChild as Text
    const letter = (i: number) => {
      const range = document.createRange()
      range.setStart(text, i)
      range.setEnd(text, i + 1)
      const r = range.getBoundingClientRect()
      return [r.x + r.width / 2, r.y + r.height / 2]
    }
    return {
      right: axis(1, 0, 0),
      down: axis(0, 1, 0),
      out: axis(0, 0, 1),
      first: letter(0),
      last: letter(text.length - 1),
    }
  }, view)
}

async function openViewer(p: Page): Promise<void> {
  await p.getByRole('link', { name: 'Files', exact: true }).click()
  await p.locator('.row[data-file="room.glb"]').click()
  await p.getByRole('link', { name: 'Open viewer' }).click()
  await p.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 120_000 })
  await p.waitForTimeout(300)
}

/** The Camera panel, opened if it is not (its toolbar button toggles it). */
async function cameraPanel(p: Page) {
  const button = p.getByRole('button', { name: 'Camera', exact: true })
  if ((await button.getAttribute('aria-pressed')) !== 'true') await button.click()
  return p.locator('.tool-panel')
}

async function restore(p: Page, name: string): Promise<void> {
  await p.getByRole('tab', { name: /Views/ }).click()
  await p.getByRole('button', { name: `Restore ${name}` }).click()
}

/** As admin before the page signs in (the page's session then supersedes this one): the model and two views. */
async function prepare(): Promise<void> {
  const admin = await apiSession(server.baseUrl, 'admin', server.adminPassword)
  const file = await admin.uploadReady('room.glb', await roomGlb())
  await admin.call('POST', '/file/configuration/', {
    file: file._id,
    name: 'API ortho',
    cameraPosition: [2, 3, 8, 0, 0, 0],
    cameraType: 'orthographic',
    cameraFoVIndex: 2,
    upVector: 'Z+',
    zNear: 0.1,
  })
  await admin.call('POST', '/file/configuration/', {
    file: file._id,
    name: 'Still camera',
    cameraPosition: [20, 20, 20, 0, 0, 0],
    cameraType: 'orthographic',
    cameraFoVIndex: 4,
    upVector: 'X-',
    disableCamera: true,
  })
}

describe('viewer camera tool', { timeout: 300_000 }, () => {
  before(async () => {
    server = await startTessera()
    await prepare()
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

  it('the panel sets projection, field of view, up and near plane; save → reload → restore gives them back', async () => {
    const start = await snapshot(page)
    assert.equal(start.projection, 'perspective')
    assert.equal(start.up, 'Y+')
    const panel = await cameraPanel(page)
    await panel.getByLabel('Orthographic').check()
    await panel.getByLabel('Field of view').selectOption({ label: '30°' })
    let s = await snapshot(page)
    assert.equal(s.projection, 'orthographic')
    assert.equal(s.fovIndex, 1)
    // Switching keeps the pose, so the orthographic camera frames the model as the perspective one did.
    assert.ok(near(s.pose.position, start.pose.position), `${s.pose.position} vs ${start.pose.position}`)
    await page.locator('.viewport canvas').focus()
    await page.keyboard.press('7')
    await settled(page)
    await page.waitForTimeout(200)
    await page.screenshot({ path: path.join(SHOTS, 'tool-camera.png') })
    const findings = blocking(await axe(page, [], '.viewport'))
    assert.equal(findings.length, 0, describeFindings(findings))
    await panel.getByLabel('Automatic').uncheck()
    await panel.getByLabel('Distance (m)').fill('2.5')
    await panel.getByLabel('Distance (m)').press('Enter')
    await panel.getByLabel('Up').selectOption('Z+')
    s = await settled(page)
    assert.equal(s.near, 2.5)
    assert.equal(s.up, 'Z+')
    await page.getByRole('tab', { name: /Views/ }).click()
    await page.getByLabel('View name').fill('Camera view')
    await page.getByRole('button', { name: 'Save current view' }).click()
    await page.getByRole('button', { name: 'Restore Camera view' }).waitFor()
    const saved = await snapshot(page)

    await page.reload()
    await page.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 120_000 })
    const fresh = await snapshot(page)
    assert.equal(fresh.projection, 'perspective')
    await restore(page, 'Camera view')
    const back = await settled(page)
    assert.deepEqual(
      { ...back, pose: null },
      { ...saved, pose: null },
      'projection, field of view, up and near come back',
    )
    assert.ok(
      near(back.pose.position, saved.pose.position),
      `${back.pose.position} vs ${saved.pose.position}`,
    )
    assert.ok(near(back.pose.target, saved.pose.target))
  })

  it('a configuration created through the API opens as it says', async () => {
    await restore(page, 'API ortho')
    const s = await settled(page)
    assert.equal(s.projection, 'orthographic')
    assert.equal(s.fovIndex, 2)
    assert.equal(s.up, 'Z+')
    assert.equal(s.near, null, 'zNear 0.1 (the default) is the automatic near plane')
    assert.ok(near(s.pose.position, [2, 3, 8]), `${s.pose.position}`)
    assert.ok(near(s.pose.target, [0, 0, 0]))
    // The panel shows what was restored.
    const panel = await cameraPanel(page)
    assert.ok(await panel.getByLabel('Orthographic').isChecked())
    assert.equal(await panel.getByLabel('Up').inputValue(), 'Z+')
  })

  it('disableCamera: restoring the view leaves the camera where it was', async () => {
    const before = await settled(page)
    await restore(page, 'Still camera')
    await page.waitForTimeout(700)
    const after = await settled(page)
    assert.ok(near(after.pose.position, before.pose.position), `moved to ${after.pose.position}`)
    assert.equal(after.projection, before.projection)
    assert.equal(after.fovIndex, before.fovIndex)
    assert.equal(after.up, before.up)
    assert.equal(after.disabled, true)
  })

  it('standard views by key and by the view cube, O switches the projection, in both projections', async () => {
    const panel = await cameraPanel(page)
    await panel.getByLabel('Up').selectOption('Y+')
    await panel.getByLabel('Perspective').check()
    const canvas = page.locator('.viewport canvas')
    await canvas.focus()
    await page.keyboard.press('5')
    let s = await settled(page)
    assert.ok(near(direction(s), [0, 1, 0], 1e-3), `top: ${direction(s)}`)
    await page.keyboard.press('o')
    s = await snapshot(page)
    assert.equal(s.projection, 'orthographic')
    assert.ok(await panel.getByLabel('Orthographic').isChecked(), 'the panel follows the key')
    // Orthographic wheel zoom (OrbitControls changes the camera's zoom) becomes distance to the target.
    const box = await canvas.boundingBox()
    assert.ok(box)
    const far = Math.hypot(...s.pose.position.map((v, i) => v - (s.pose.target[i] ?? 0)))
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
    await page.mouse.wheel(0, -300)
    s = await settled(page)
    const closer = Math.hypot(...s.pose.position.map((v, i) => v - (s.pose.target[i] ?? 0)))
    assert.ok(closer < far * 0.95, `wheel zoom: ${far} → ${closer}`)
    await canvas.focus()
    // Seen from the top, the cube's front face is edge-on: the iso view shows it.
    await page.keyboard.press('7')
    await settled(page)
    await page.locator('.view-cube [data-view="front"]').click()
    s = await settled(page)
    assert.ok(near(direction(s), [0, 0, 1], 1e-6), `front: ${direction(s)}`)
    // With Z up, the front is seen from -Y (CAD's convention).
    await panel.getByLabel('Up').selectOption('Z+')
    await panel.getByRole('button', { name: 'Front' }).click()
    s = await settled(page)
    assert.ok(near(direction(s), [0, -1, 0], 1e-6), `front, Z up: ${direction(s)}`)
    await panel.getByLabel('Up').selectOption('Y+')
    await canvas.focus()
    await page.keyboard.press('7')
    s = await settled(page)
    const iso = [1, 0.8, 1.2].map((v) => v / Math.hypot(1, 0.8, 1.2))
    assert.ok(near(direction(s), iso, 1e-6), `iso: ${direction(s)}`)
    // C (the toolbar entry's key) closes and opens the panel from the 3D view. Opened so, the focus
    // is on the panel's first control (the projection's checked radio); C or Esc there closes it and
    // the focus is back in the 3D view. The toolbar's button is a disclosure: the focus stays on it.
    const button = page.getByRole('button', { name: 'Camera', exact: true })
    const where = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLInputElement | null
        const where = el?.closest('.tool-panel') ? 'panel' : el?.closest('[role="toolbar"]') ? 'toolbar' : ''
        return `${where} ${el?.tagName.toLowerCase()}${el?.type === 'radio' && el.checked ? ' checked radio' : ''}`
      })
    // Preact renders after the key's events: wait for it.
    const focus = async (expected: string) => {
      await until(async () => (await where()) === expected, `the focus on ${expected}`, 3000).catch(() => {})
      assert.equal(await where(), expected)
    }
    await page.keyboard.press('c')
    assert.equal(await button.getAttribute('aria-pressed'), 'false')
    await focus(' canvas')
    for (const close of ['c', 'Escape']) {
      await page.keyboard.press('c')
      assert.equal(await button.getAttribute('aria-pressed'), 'true')
      await focus('panel input checked radio')
      await page.keyboard.press(close)
      assert.equal(await button.getAttribute('aria-pressed'), 'false', close)
      await focus(' canvas')
    }
    // In a field that takes letters the letter is the field's: the panel stays open.
    await page.keyboard.press('c')
    await page.locator('.tool-panel').getByLabel('Automatic').uncheck()
    await page.locator('.tool-panel').getByLabel('Distance (m)').press('c')
    assert.equal(await button.getAttribute('aria-pressed'), 'true')
    await page.locator('.tool-panel').getByLabel('Automatic').check()
    await page.locator('.tool-panel').getByLabel('Automatic').press('c')
    await focus(' canvas')
    await button.click()
    assert.equal(await button.getAttribute('aria-pressed'), 'true')
    await focus('toolbar button')
  })

  it('the view cube seen from above and below: Top and Bottom read upright, left to right', async () => {
    const canvas = page.locator('.viewport canvas')
    const panel = await cameraPanel(page)
    for (const up of ['Y+', 'Z+']) {
      await panel.getByLabel('Up').selectOption(up)
      for (const [key, face] of [
        ['5', 'top'],
        ['6', 'bottom'],
      ] as const) {
        await canvas.focus()
        await page.keyboard.press(key)
        await settled(page)
        // The cube follows the camera at its next frame.
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
        const f = await faceOnScreen(page, face)
        const what = `${face} seen from its side, up ${up}: ${JSON.stringify(f)}`
        // Its reading direction is the screen's right, its downward the screen's down, facing us:
        // neither mirrored nor upside down.
        assert.ok(near(f.right, [1, 0, 0], 0.01) && near(f.down, [0, 1, 0], 0.01), what)
        assert.ok((f.out[2] ?? 0) > 0.99, what)
        assert.ok(
          (f.first[0] ?? 0) < (f.last[0] ?? 0) && Math.abs((f.first[1] ?? 0) - (f.last[1] ?? 0)) < 1,
          what,
        )
        if (up === 'Y+' && face === 'top') {
          const cube = await page.locator('.view-cube').boundingBox()
          assert.ok(cube)
          await page.screenshot({
            path: path.join(SHOTS, 'tool-camera-cube-top.png'),
            clip: { x: cube.x - 40, y: cube.y - 30, width: cube.width + 80, height: cube.height + 82 },
          })
        }
      }
    }
    await panel.getByLabel('Up').selectOption('Y+')
    await canvas.focus()
    await page.keyboard.press('7')
    await settled(page)
  })

  it('a fixed near plane beyond the wall cuts it away; automatic draws it again', async () => {
    const panel = await cameraPanel(page)
    await page.getByRole('button', { name: 'Fit all' }).click()
    const s = await settled(page)
    await page.waitForTimeout(200)
    const wall = await redPixels(page)
    assert.ok(wall > 5000, `the wall is drawn: ${wall} px`)
    // The wall reaches ~1.7 m beyond the target, along the view: a near plane 2.5 m beyond cuts it all.
    const distance = Math.hypot(...s.pose.position.map((v, i) => v - (s.pose.target[i] ?? 0)))
    await panel.getByLabel('Automatic').uncheck()
    await panel.getByLabel('Distance (m)').fill(String((distance + 2.5).toFixed(2)))
    await panel.getByLabel('Distance (m)').press('Enter')
    await until(async () => (await redPixels(page)) === 0, 'the wall cut away by the near plane')
    await panel.getByLabel('Automatic').check()
    await until(async () => (await redPixels(page)) === wall, 'the whole wall drawn again')
    await page.emulateMedia({ colorScheme: 'dark' })
    await page.waitForTimeout(400)
    await page.screenshot({ path: path.join(SHOTS, 'tool-camera-dark.png') })
    const findings = blocking(await axe(page, [], '.viewport'))
    assert.equal(findings.length, 0, describeFindings(findings))
    await page.emulateMedia({ colorScheme: 'light' })
    assert.deepEqual(errors, [])
  })
})

// Section planes and the section box in Chromium (software WebGL): a cut really removes the near
// wall (the far one shows), a cap in the cap colour closes the cut through a closed wall, a click
// on the cut-away part picks what is visible, the arrow drags a plane without orbiting, the
// keyboard reaches everything, a saved view (and one made through the API) restores the same
// clipping planes read back from three.js, and axe finds nothing serious on the open panel;
// "Plane from face" shows a crosshair until a face is picked or the panel closes.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { apiSession } from './support/api-session.ts'
import { axe, blocking, describeFindings } from './support/axe.ts'
import { collectErrors, launch, signInAsAdmin } from './support/browser.ts'
import { cutGlb, pixel, section } from './support/section.ts'
import { startTessera, type Tessera } from './support/server.ts'

const DESKTOP = { width: 1280, height: 800 }
const SHOTS = path.resolve(import.meta.dirname, '../../../docs/console')
const CAP = [0xd4, 0xa0, 0x17]

let server: Tessera
let browser: Browser
let page: Page
let errors: string[]

async function openViewer(p: Page): Promise<void> {
  await p.getByRole('link', { name: 'Files', exact: true }).click()
  await p.locator('.row[data-file="cut.glb"]').click()
  await p.getByRole('link', { name: 'Open viewer' }).click()
  await p.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 120_000 })
  await p.waitForTimeout(300)
}

const reddish = ([r, g, b]: number[]) => (r ?? 0) > 100 && (r ?? 0) > 2 * ((g ?? 0) + (b ?? 0))
const bluish = ([r, g, b]: number[]) => (b ?? 0) > 100 && (b ?? 0) > 2 * ((r ?? 0) + (g ?? 0))
const near = (a: number[], b: number[], tolerance = 12) =>
  a.every((v, i) => Math.abs(v - (b[i] ?? 0)) <= tolerance)

async function until(test: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5000
  while (!(await test())) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** Wait for the 3D view's cursor, as drawn, to be the crosshair (or not). */
function crosshair(p: Page, on: boolean): Promise<void> {
  const drawn = () => p.locator('.viewport canvas').evaluate((c) => getComputedStyle(c).cursor)
  return until(async () => ((await drawn()) === 'crosshair') === on, `the crosshair ${on ? 'on' : 'off'}`)
}

function panel(p: Page) {
  return p.getByRole('region', { name: 'Section' })
}

function sectionButton(p: Page) {
  return p.getByRole('toolbar', { name: 'Viewer tools' }).getByRole('button', { name: 'Section' })
}

async function openPanel(p: Page): Promise<void> {
  if ((await sectionButton(p).getAttribute('aria-pressed')) !== 'true') await sectionButton(p).click()
  await panel(p).waitFor()
}

/** Closed, the panel takes its arrow away (it would cover the pixels and the click at the centre). */
async function closePanel(p: Page): Promise<void> {
  if ((await sectionButton(p).getAttribute('aria-pressed')) === 'true') await sectionButton(p).click()
  await panel(p).waitFor({ state: 'detached' })
}

describe('section planes and box in Chromium', { timeout: 300_000 }, () => {
  before(async () => {
    server = await startTessera()
    // Through the API, before any page signs in (an API session supersedes the account's other one).
    const api = await apiSession(server.baseUrl, 'admin', server.adminPassword)
    const file = (await api.uploadReady('cut.glb', await cutGlb()))._id
    await api.call('POST', '/file/configuration/', {
      file,
      name: 'From the API',
      clippingPlanesEnabled: true,
      enabledClippingPlanes: [
        { type: 'plane', id: 'api-x', normal: [2, 0, 0], constant: 1, capColor: '#00aa55' },
        { type: 'sphere', radius: 3 },
      ],
    })
    browser = await launch()
    page = await (await browser.newContext({ viewport: DESKTOP })).newPage()
    errors = collectErrors(page, [401])
    await signInAsAdmin(page, server)
    await openViewer(page)
  })

  after(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('a Z plane removes the near wall (the far one shows), a click there picks the far wall', async () => {
    assert.ok(reddish(await pixel(page)), 'the near wall is in front before the cut')
    await openPanel(page)
    await panel(page).getByRole('button', { name: 'Add Z plane' }).click()
    const s = await section(page)
    assert.equal(s.enabled, true)
    assert.deepEqual(
      s.planes.map((p) => [p.normal, p.enabled]),
      [[[0, 0, -1], true]],
    )
    const behind = await pixel(page)
    assert.ok(bluish(behind), `the far wall shows through the cut: ${behind}`)
    // Off with the master switch: the near wall is back.
    await openPanel(page)
    await panel(page).getByLabel('Cut the model').uncheck()
    await closePanel(page)
    assert.ok(reddish(await pixel(page)), 'master switch off: nothing is cut')
    assert.equal((await section(page)).enabled, false)
    await openPanel(page)
    await panel(page).getByLabel('Cut the model').check()
    await closePanel(page)
    const canvas = await page.locator('.viewport canvas').boundingBox()
    assert.ok(canvas)
    await page.mouse.click(canvas.x + canvas.width / 2, canvas.y + canvas.height / 2)
    const selected = page.locator('.tree [aria-selected="true"]')
    await selected.first().waitFor({ timeout: 15_000 })
    assert.deepEqual(await selected.allTextContents(), ['Far wall'], 'the click picks what is visible')
  })

  it('a cut through the closed far wall is capped in the cap colour; flipped, the near half comes back', async () => {
    await openPanel(page)
    const number = panel(page).getByLabel('Plane 1 (Z) position, number')
    await number.fill('-1')
    await number.press('Enter')
    assert.equal((await section(page)).planes[0]?.constant, -1)
    await closePanel(page)
    const cap = await pixel(page)
    assert.ok(near(cap, CAP), `the cap colour at the cut (${cap})`)
    // The picture: the cap, the arrow on plane 1, the panel open, in both themes; axe on the panel.
    await openPanel(page)
    await page.waitForTimeout(300)
    await page.screenshot({ path: path.join(SHOTS, 'tool-section.png') })
    await page.getByLabel('Theme').selectOption('dark')
    await page.waitForTimeout(300)
    const findings = blocking(await axe(page, [], '.tool-panel'))
    assert.deepEqual(findings, [], `dark: ${describeFindings(findings)}`)
    await page.screenshot({ path: path.join(SHOTS, 'tool-section-dark.png') })
    await page.getByLabel('Theme').selectOption('light')
    await panel(page).getByRole('button', { name: 'Flip Plane 1 (Z)' }).click()
    const flipped = (await section(page)).planes[0]
    assert.deepEqual([flipped?.normal, flipped?.constant], [[0, 0, 1], 1])
    await closePanel(page)
    assert.ok(reddish(await pixel(page)), 'flipped: the near wall is kept')
    await openPanel(page)
    await panel(page).getByRole('button', { name: 'Flip Plane 1 (Z)' }).click()
  })

  it('the keyboard adds a plane, moves it, adds a box and removes a plane', async () => {
    await page.getByRole('toolbar', { name: 'Viewer tools' }).getByRole('button', { name: 'Section' }).focus()
    await openPanel(page)
    await panel(page).getByRole('button', { name: 'Add Y plane' }).focus()
    await page.keyboard.press('Enter')
    const before = (await section(page)).planes[1]
    assert.deepEqual(before?.normal, [0, -1, 0])
    await panel(page).getByLabel('Plane 2 (Y) position', { exact: true }).focus()
    await page.keyboard.press('PageUp')
    const after = (await section(page)).planes[1]
    assert.ok((after?.constant ?? 0) > (before?.constant ?? 0), `${before?.constant} → ${after?.constant}`)
    await panel(page).getByLabel('Box on').focus()
    await page.keyboard.press('Space')
    const withBox = await section(page)
    assert.ok(withBox.box?.enabled, 'a box around the model')
    assert.ok((withBox.box?.min[0] ?? 0) < -2 && (withBox.box?.max[0] ?? 0) > 2, JSON.stringify(withBox.box))
    await panel(page).getByLabel('Y min').focus()
    await page.keyboard.press('ArrowRight')
    assert.ok(
      ((await section(page)).box?.min[1] ?? -9) > (withBox.box?.min[1] ?? 0),
      'the box floor moved up',
    )
    await panel(page).getByRole('button', { name: 'Remove Plane 2 (Y)' }).press('Enter')
    assert.equal((await section(page)).planes.length, 1)
    // Focus goes to the remaining plane's row (not the page's start, nor a still disabled Add button).
    assert.ok(
      await page.evaluate(() => document.activeElement?.closest('.section-panel li') != null),
      'focus lost',
    )
    await page.keyboard.press('Escape')
    await panel(page).waitFor({ state: 'detached' })
  })

  it('the arrow drags the plane along its normal; the camera does not move', async () => {
    await openPanel(page)
    await panel(page).getByRole('button', { name: 'Add Y plane' }).click()
    const camera = await page.locator('.viewport').getAttribute('data-camera')
    const before = (await section(page)).planes[1]?.constant ?? 0
    const c = await page.locator('.viewport canvas').boundingBox()
    assert.ok(c)
    // The arrow starts at the model's centre (the canvas centre) and points down (−Y).
    const x = c.x + c.width / 2
    const y = c.y + c.height / 2 + 45
    await page.mouse.move(x, y)
    await page.mouse.move(x, y + 1)
    await page.mouse.down()
    await page.mouse.move(x, y + 60, { steps: 4 })
    await page.mouse.up()
    const after = (await section(page)).planes[1]?.constant ?? 0
    // Down is −Y: the plane's constant (its y, the normal being −Y) goes down.
    assert.ok(after < before - 0.05, `dragged down: ${before} → ${after}`)
    assert.equal(await page.locator('.viewport').getAttribute('data-camera'), camera, 'no orbit')
    const findings = blocking(await axe(page, [], '.tool-panel'))
    assert.deepEqual(findings, [], `light: ${describeFindings(findings)}`)
  })

  it('a saved view with planes and a box reopens identical after a reload', async () => {
    const saved = await section(page)
    assert.equal(saved.planes.length, 2)
    assert.ok(saved.box)
    await page.getByRole('tab', { name: /Views/ }).click()
    await page.getByLabel('View name').fill('Cut')
    await page.getByRole('button', { name: 'Save current view' }).click()
    await page.getByRole('button', { name: 'Restore Cut' }).waitFor()
    await page.reload()
    await page.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 120_000 })
    assert.deepEqual((await section(page)).planes, [], 'a fresh viewer cuts nothing')
    await page.getByRole('tab', { name: /Views/ }).click()
    await page.getByRole('button', { name: 'Restore Cut' }).click()
    assert.deepEqual(await section(page), saved)
  })

  it('a configuration made through the API opens with its plane; the unknown entry is skipped', async () => {
    await page.getByRole('button', { name: 'Restore From the API' }).click()
    const s = await section(page)
    assert.deepEqual(s, {
      enabled: true,
      planes: [{ id: 'api-x', normal: [1, 0, 0], constant: 0.5, enabled: true, capColor: '#00aa55' }],
      box: null,
    })
  })

  it('"Plane from face" puts a plane on the clicked face, cutting what is in front, and selects nothing', async () => {
    await openPanel(page)
    const button = panel(page).getByRole('button', { name: 'Plane from face' })
    await button.click()
    assert.equal(await button.getAttribute('aria-pressed'), 'true')
    await crosshair(page, true)
    const c = await page.locator('.viewport canvas').boundingBox()
    assert.ok(c)
    await page.mouse.click(c.x + c.width / 2, c.y + c.height / 2)
    await until(async () => (await section(page)).planes.length === 2, 'the plane from the face')
    // The face picked: the crosshair is gone.
    await crosshair(page, false)
    const plane = (await section(page)).planes[1]
    // The near wall's front face: z = 1.1, facing +z; the plane faces −z and keeps the wall.
    const want = [0, 0, -1, 1.1]
    const got = [...(plane?.normal ?? []), plane?.constant ?? 0]
    assert.ok(near(got, want, 1e-3), `${got}`)
    assert.equal(await button.getAttribute('aria-pressed'), 'false')
    assert.equal(await page.locator('.tree [aria-selected="true"]').count(), 0, 'the click selected nothing')
  })

  it('"Plane from face" cancelled by closing the panel: no crosshair left, a click selects again', async () => {
    await openPanel(page)
    const button = panel(page).getByRole('button', { name: 'Plane from face' })
    await button.click()
    await crosshair(page, true)
    await button.focus()
    await page.keyboard.press('Escape')
    await panel(page).waitFor({ state: 'detached' })
    await crosshair(page, false)
    const before = (await section(page)).planes.length
    const c = await page.locator('.viewport canvas').boundingBox()
    assert.ok(c)
    await page.mouse.click(c.x + c.width / 2, c.y + c.height / 2)
    await page.locator('.tree [aria-selected="true"]').first().waitFor({ timeout: 5000 })
    assert.equal((await section(page)).planes.length, before, 'the click made no plane')
    assert.deepEqual(errors, [])
  })
})

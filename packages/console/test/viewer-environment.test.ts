// The Display tool in Chromium (software WebGL): environment lighting, skybox, brightness,
// orientation and render modes set from the panel, saved as a view, reloaded and restored to the
// same engine state; a view created through the API opens as it says; the skybox replaces the
// theme's background and gives it back; edges draw dark lines; axe on the open panel.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import type { EnvironmentSettings } from '../src/viewer/state/environment.ts'
import { apiSession } from './support/api-session.ts'
import { axe, blocking, describeFindings } from './support/axe.ts'
import { collectErrors, launch, signInAsAdmin } from './support/browser.ts'
import { cadGlb } from './support/cad-model.ts'
import { canvasImage } from './support/canvas-pixels.ts'
import { startTessera, type Tessera } from './support/server.ts'

const SHOTS = path.resolve(import.meta.dirname, '../../../docs/console')
const LIGHT_BG: Rgb = [0xee, 0xf1, 0xf5]
const DARK_BG: Rgb = [0x1b, 0x22, 0x2c]
type Rgb = [number, number, number]

let server: Tessera
let browser: Browser
let page: Page
let fileId: string
let errors: string[]

interface Diagnostics {
  pmremMs: Record<string, number>
  edgeLines: number
  meshesWithoutEdges: number
}

function snapshot(p: Page): Promise<EnvironmentSettings> {
  return p
    .locator('.viewport canvas')
    .evaluate(
      (c) =>
        (c as unknown as { tesseraSnapshot(): { environment: EnvironmentSettings } }).tesseraSnapshot()
          .environment,
    )
}

function diagnostics(p: Page): Promise<Diagnostics> {
  return p
    .locator('.viewport canvas')
    .evaluate((c) => (c as unknown as { tesseraEnvironment(): Diagnostics }).tesseraEnvironment())
}

/** The canvas pixel a few pixels in from its bottom-right corner: background in every view here. */
async function corner(p: Page): Promise<Rgb> {
  const { data, width } = await canvasImage(p)
  const height = data.length / 4 / width
  const i = ((height - 6) * width + (width - 6)) * 4
  return [data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0]
}

const near = (a: Rgb, b: Rgb) => a.every((v, i) => Math.abs(v - (b[i] ?? 0)) <= 3)

async function darkPixels(p: Page): Promise<number> {
  const { data } = await canvasImage(p)
  let n = 0
  for (let i = 0; i < data.length; i += 4)
    if (Math.max(data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0) < 60) n++
  return n
}

/** The next frames drawn (the loop draws on requestAnimationFrame). */
const frames = (p: Page) =>
  p.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))

async function openView(p: Page): Promise<void> {
  await p.goto(`${server.baseUrl}/view/${fileId}`)
  await p.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
}

async function restore(p: Page, name: string): Promise<void> {
  await p.getByRole('tab', { name: /Views/ }).click()
  await p.getByRole('button', { name: `Restore ${name}` }).click()
  await frames(p)
}

const SET: EnvironmentSettings = {
  enabled: true,
  file: 'room',
  brightness: 0.5,
  orientation: 90,
  skybox: true,
  ibl: true,
  renderMode: 'shaded-edges',
}

describe('Display tool in Chromium', { timeout: 300_000 }, () => {
  before(async () => {
    server = await startTessera()
    const api = await apiSession(server.baseUrl, 'admin', server.adminPassword)
    fileId = (await api.uploadReady('bracket.glb', await cadGlb()))._id
    await api.call('POST', '/file/configuration/', {
      file: fileId,
      name: 'From API',
      environmentEnabled: true,
      environmentFile: 'neutral',
      environmentBrightness: 2,
      environmentOrientation: -45,
      skyboxEnabled: false,
      iblEnabled: true,
      renderMode: 'flat',
    })
    browser = await launch()
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
    // The first frame lit by the environment compiles the PBR shaders with it: ~19 s under
    // SwiftShader (software GL), during which the page does not answer.
    page.setDefaultTimeout(120_000)
    errors = collectErrors(page, [401])
    await signInAsAdmin(page, server)
    await openView(page)
  })

  after(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('set from the panel with the keyboard, saved, reloaded and restored: the same engine state', async (t) => {
    await page.locator('.viewport canvas').focus()
    await page.getByRole('button', { name: 'Display' }).click()
    const panel = page.getByRole('region', { name: 'Display' })
    assert.ok(near(await corner(page), LIGHT_BG), 'the theme colour before the skybox')
    const darkShaded = await darkPixels(page)
    // Keyboard: Space ticks a checkbox, arrows move a slider and choose a radio.
    for (const name of ['Environment on', /IBL/, /skybox/]) {
      await panel.getByLabel(name).focus()
      await page.keyboard.press('Space')
      await frames(page)
      assert.equal(await panel.getByLabel(name).isChecked(), true, `${name} ticked`)
    }
    const brightness = panel.getByLabel(/Brightness/)
    await brightness.focus()
    for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowLeft')
    await panel.getByLabel(/Orientation/).fill('90')
    await panel.getByRole('radio', { name: 'Shaded', exact: true }).focus()
    await page.keyboard.press('ArrowDown')
    assert.equal(await panel.getByRole('radio', { name: 'Shaded with edges' }).isChecked(), true)
    await frames(page)
    assert.deepEqual(await snapshot(page), SET)
    const sky = await corner(page)
    assert.ok(!near(sky, LIGHT_BG), `the skybox replaces the theme's background (${sky})`)
    const edges = await diagnostics(page)
    assert.ok(edges.edgeLines >= 4, `edge lines on every mesh (${edges.edgeLines})`)
    t.diagnostic(`PMREM generation (software GL): ${JSON.stringify(edges.pmremMs)} ms`)
    await page.screenshot({ path: path.join(SHOTS, 'tool-environment.png') })

    // Turned off and on again: the theme's colour comes back, then the skybox.
    await panel.getByLabel(/skybox/).click()
    await frames(page)
    assert.ok(near(await corner(page), LIGHT_BG), 'the theme colour is back with the skybox off')
    await panel.getByLabel(/skybox/).click()

    await page.getByRole('tab', { name: /Views/ }).click()
    await page.getByLabel('View name').fill('Studio')
    await page.getByRole('button', { name: 'Save current view' }).click()
    await page.getByRole('button', { name: 'Restore Studio' }).waitFor()
    await openView(page)
    assert.notDeepEqual(await snapshot(page), SET, 'a fresh page starts from the defaults')
    assert.ok(near(await corner(page), LIGHT_BG))
    assert.equal(darkShaded, await darkPixels(page), 'the same picture as before the tool was used')
    await restore(page, 'Studio')
    assert.deepEqual(await snapshot(page), SET)
    assert.ok(!near(await corner(page), LIGHT_BG), 'the skybox again after the restore')
    assert.ok((await diagnostics(page)).edgeLines >= 4, 'the edge lines again after the restore')
  })

  it('shaded with edges adds dark lines; flat shading reaches the materials; the theme follows under the skybox', async () => {
    if ((await page.getByRole('button', { name: 'Display' }).getAttribute('aria-pressed')) !== 'true')
      await page.getByRole('button', { name: 'Display' }).click()
    const panel = page.getByRole('region', { name: 'Display' })
    await panel.getByLabel(/skybox/).click()
    await panel.getByRole('radio', { name: 'Shaded', exact: true }).check()
    await frames(page)
    const without = await darkPixels(page)
    await panel.getByRole('radio', { name: 'Shaded with edges' }).check()
    await frames(page)
    const withEdges = await darkPixels(page)
    assert.ok(withEdges > without + 500, `edges add dark pixels (${without} → ${withEdges})`)
    await page.getByRole('button', { name: 'Display' }).click()
    await page.screenshot({ path: path.join(SHOTS, 'tool-render-edges.png') })
    await page.getByRole('button', { name: 'Display' }).click()
    await panel.getByRole('radio', { name: 'Flat' }).check()
    await frames(page)
    assert.equal((await snapshot(page)).renderMode, 'flat')
    // The skybox on, the theme turns dark: the skybox stays; off, the dark theme's colour shows.
    await panel.getByLabel(/skybox/).click()
    await page.emulateMedia({ colorScheme: 'dark' })
    await frames(page)
    assert.ok(
      !near(await corner(page), DARK_BG) && !near(await corner(page), LIGHT_BG),
      'the skybox wins over the theme',
    )
    await panel.getByLabel(/skybox/).click()
    await panel.getByRole('radio', { name: 'Shaded with edges' }).check()
    await frames(page)
    assert.ok(near(await corner(page), DARK_BG), `the dark theme's colour (${await corner(page)})`)
    await page.getByRole('button', { name: 'Display' }).click()
    await page.screenshot({ path: path.join(SHOTS, 'tool-render-edges-dark.png') })
    await page.emulateMedia({ colorScheme: 'light' })
  })

  it('a view created through the API opens as it says', async () => {
    await openView(page)
    await restore(page, 'From API')
    assert.deepEqual(await snapshot(page), {
      enabled: true,
      file: 'neutral',
      brightness: 2,
      orientation: 315,
      skybox: false,
      ibl: true,
      renderMode: 'flat',
    })
    assert.ok(near(await corner(page), LIGHT_BG), 'no skybox: the theme colour')
  })

  it('the open panel has no serious or critical axe finding, in both themes', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      await page.getByRole('button', { name: 'Display' }).click()
      const findings = blocking(await axe(page, [], '.tool-panel'))
      assert.deepEqual(findings, [], describeFindings(findings))
      await page.getByRole('button', { name: 'Display' }).click()
    }
    assert.deepEqual(errors, [])
  })
})

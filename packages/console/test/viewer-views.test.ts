// Saved views in Chromium against a real server: a saved view gets a thumbnail (shown, its bytes
// within the server's bound), rename with the keyboard, "Update from current" (the stored camera
// differs from the current one, then equals it), "Open with this view" (one view at a time; a reload
// lands on its camera), "Save camera automatically" (the moved camera is written back, read through
// the API), the screenshot download (a PNG named after the model), a viewer who sees thumbnails but
// cannot change views, and axe on the panel. What the server stored is read by an account no page uses.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { type ApiSession, apiSession } from './support/api-session.ts'
import { seriousViolations } from './support/axe.ts'
import { collectErrors, launch } from './support/browser.ts'
import { startTessera, type Tessera } from './support/server.ts'
import { roomGlb } from './support/viewer-models.ts'

const SHOTS = path.resolve(import.meta.dirname, '../../../docs/console')
const DESKTOP = { width: 1280, height: 800 }
const PASSWORD = 'views-test-password-1'

interface View {
  _id: string
  __v: number
  name: string
  cameraPosition: number[]
  activeOnStart: boolean
  autosaveCameraPosition: boolean
}

let server: Tessera
let browser: Browser
let audit: ApiSession
let page: Page
let errors: string[]
let fileId = ''

async function signIn(username: string, password: string): Promise<Page> {
  const context = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true })
  const p = await context.newPage()
  await p.goto(server.baseUrl)
  await p.getByLabel('Username').fill(username)
  await p.getByLabel('Password', { exact: true }).fill(password)
  await p.getByRole('button', { name: 'Sign in' }).click()
  await p.getByRole('heading', { name: 'My files' }).waitFor()
  return p
}

async function openViewer(p: Page): Promise<void> {
  await p.goto(`${server.baseUrl}/view/${fileId}`)
  await p.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
  await p.getByRole('tab', { name: /Views/ }).click()
}

/** The camera the viewer shows: position then target (the viewport's data-camera). */
async function camera(p: Page): Promise<number[]> {
  return ((await p.locator('.viewport').getAttribute('data-camera')) ?? '').split(',').map(Number)
}

const near = (a: number[], b: number[], tolerance = 2e-3) =>
  a.length === b.length && a.every((x, i) => Math.abs(x - (b[i] ?? Number.NaN)) < tolerance)

/** Orbits with the keyboard until the camera has moved (the 3D view takes the arrow keys). */
async function orbit(p: Page, key = 'ArrowLeft'): Promise<number[]> {
  const before = await camera(p)
  await p.locator('.viewport canvas').focus()
  for (let i = 0; i < 6; i++) await p.keyboard.press(key)
  await until(async () => !near(await camera(p), before), 'the camera moved')
  await p.waitForTimeout(400)
  return camera(p)
}

async function until(check: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

const row = (p: Page, name: string) => p.locator(`.views li[data-view="${name}"]`)

async function stored(name: string): Promise<View> {
  const { configurations } = await audit.call<{ configurations: View[] }>(
    'GET',
    `/file/configuration/?file=${fileId}`,
  )
  const view = configurations.find((v) => v.name === name)
  assert.ok(view, `no view ${name}`)
  return view
}

/** The thumbnail a row shows: drawn (naturalWidth), and its bytes as fetched with the session. */
async function shownThumbnail(p: Page, name: string): Promise<{ width: number; bytes: number[] }> {
  const img = row(p, name).locator('img.view-thumb')
  await img.waitFor()
  assert.equal(await img.getAttribute('alt'), name)
  assert.equal(await img.getAttribute('loading'), 'lazy')
  return img.evaluate(async (el: HTMLImageElement) => {
    await el.decode()
    const bytes = new Uint8Array(await (await fetch(el.src)).arrayBuffer())
    return { width: el.naturalWidth, bytes: [...bytes] }
  })
}

describe('saved views', { timeout: 300_000 }, () => {
  before(async () => {
    server = await startTessera({ TESSERA_LICENSES: '10' })
    for (const name of ['vic', 'audit']) {
      await server.cli(
        ['accounts', 'create', '--email', `${name}@example.com`, '--username', name],
        `${PASSWORD}\n`,
      )
    }
    const owner = await apiSession(server.baseUrl, 'admin', server.adminPassword)
    fileId = (await owner.upload('room.glb', await roomGlb()))._id
    await until(
      async () =>
        (await owner.call<{ file: { state: string } }>('GET', `/file/${fileId}`)).file.state === 'ready',
      'the conversion',
      120_000,
    )
    for (const name of ['vic', 'audit'])
      await owner.call('POST', `/file/${fileId}/share`, { email: `${name}@example.com`, role: 'viewer' })
    // A view made through the API, already marked to open with the file.
    await owner.call('POST', '/file/configuration/', {
      file: fileId,
      name: 'From the API',
      cameraPosition: [5, 3, 5, 0, 0, 0],
      activeOnStart: true,
    })
    audit = await apiSession(server.baseUrl, 'audit', PASSWORD)
    browser = await launch()
    page = await signIn('admin', server.adminPassword)
    errors = collectErrors(page, [401])
  })

  after(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('opens with the view marked "Open with this view" (made through the API)', async () => {
    await openViewer(page)
    await until(async () => near(await camera(page), [5, 3, 5, 0, 0, 0]), 'the start view’s camera')
  })

  it('saves a view with a thumbnail: shown in the list, a WebP or PNG within 64 KiB', async () => {
    await orbit(page)
    await page.getByLabel('View name').fill('Alpha')
    await page.getByRole('button', { name: 'Save current view' }).click()
    const { width, bytes } = await shownThumbnail(page, 'Alpha')
    assert.ok(width > 0 && width <= 320, `naturalWidth ${width}`)
    assert.ok(bytes.length > 100 && bytes.length <= 64 * 1024, `${bytes.length} bytes`)
    const head = Buffer.from(bytes.slice(0, 12)).toString('latin1')
    assert.ok(head.startsWith('\x89PNG') || (head.startsWith('RIFF') && head.endsWith('WEBP')), head)
  })

  it('renames with the keyboard: Enter saves, Escape cancels', async () => {
    await page.getByRole('button', { name: 'Rename view Alpha' }).focus()
    await page.keyboard.press('Enter')
    const field = page.getByLabel('New name for Alpha')
    await field.fill('Discarded')
    await page.keyboard.press('Escape')
    await row(page, 'Alpha').getByRole('button', { name: 'Restore Alpha' }).waitFor()
    await page.getByRole('button', { name: 'Rename view Alpha' }).click()
    await field.fill('Beta')
    await page.keyboard.press('Enter')
    await row(page, 'Beta').waitFor()
    assert.equal((await stored('Beta')).name, 'Beta')
  })

  it('"Update from current": the stored camera differs from the moved one, then equals it', async () => {
    const moved = await orbit(page, 'ArrowUp')
    const before = await stored('Beta')
    assert.ok(!near(before.cameraPosition, moved), 'the view still has the old camera')
    await page.getByRole('button', { name: 'Update from current: view Beta' }).click()
    await until(async () => near((await stored('Beta')).cameraPosition, moved), 'the updated camera')
    assert.ok((await stored('Beta')).__v > before.__v)
  })

  it('"Open with this view": one view at a time, and a reload lands on its camera', async () => {
    const beta = await stored('Beta')
    await row(page, 'Beta').getByLabel('Open with this view').check()
    await until(async () => (await stored('Beta')).activeOnStart, 'Beta marked')
    await until(async () => !(await stored('From the API')).activeOnStart, 'the other view cleared')
    await orbit(page)
    await page.reload()
    await page.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
    await until(async () => near(await camera(page), beta.cameraPosition), 'Beta’s camera after reload')
    await page.getByRole('tab', { name: /Views/ }).click()
  })

  it('"Save camera automatically": the camera moved in the followed view is written back', async () => {
    await row(page, 'Beta').getByLabel('Save camera automatically').check()
    await until(async () => (await stored('Beta')).autosaveCameraPosition, 'autosave on')
    const moved = await orbit(page, 'ArrowRight')
    await until(
      async () => near((await stored('Beta')).cameraPosition, moved),
      'the autosaved camera',
      15_000,
    )
  })

  it('downloads a screenshot of the 3D view as PNG named after the model', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Screenshot (PNG)' }).click(),
    ])
    assert.match(download.suggestedFilename(), /^room-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.png$/)
    const file = await download.path()
    const { readFile } = await import('node:fs/promises')
    const bytes = await readFile(file)
    assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    assert.ok(bytes.length > 1000)
  })

  it('the panel passes axe; its picture is docs/console/tool-views.png', async () => {
    await page.getByLabel('View name').fill('Gamma')
    await page.getByRole('button', { name: 'Save current view' }).click()
    await shownThumbnail(page, 'Gamma')
    await shownThumbnail(page, 'Beta')
    assert.deepEqual(await seriousViolations(page), [])
    await page.screenshot({ path: path.join(SHOTS, 'tool-views.png') })
    await page.emulateMedia({ colorScheme: 'dark' })
    assert.deepEqual(await seriousViolations(page), [])
    await page.emulateMedia({ colorScheme: 'light' })
    assert.deepEqual(errors, [])
  })

  it('a viewer sees the thumbnails but cannot rename, update or mark views', async () => {
    const vic = await signIn('vic', PASSWORD)
    await openViewer(vic)
    const { width } = await shownThumbnail(vic, 'Beta')
    assert.ok(width > 0)
    for (const name of [/^Rename view/, /^Update from current/, /^Delete view/])
      assert.equal(await vic.getByRole('button', { name }).count(), 0)
    assert.equal(await vic.getByLabel('Open with this view').count(), 0)
    assert.equal(await vic.getByRole('button', { name: 'Screenshot (PNG)' }).count(), 1)
  })
})

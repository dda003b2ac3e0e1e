// Files, uploads, webhooks and deliveries in Chromium (issue 30): the upload tray that lives across
// screens and guards a reload, failed uploads, the inline "New folder" form, sorting, the file
// list's structure for screen readers, the viewer's way back, the delivery log's request count and
// the webhooks table on a phone. A real `tessera serve` (SQLite, temp dir) and real Chromium.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { axe, blocking, describeFindings } from './support/axe.ts'
import { collectErrors, launch, signInAsAdmin } from './support/browser.ts'
import { binaryStl, brokenGlb, throttleUploads } from './support/files-helpers.ts'
import { stlCube } from './support/models.ts'
import { startReceiver, startTessera, type Tessera } from './support/server.ts'

const SHOTS = path.resolve(import.meta.dirname, '../../../docs/console')
const DESKTOP = { width: 1280, height: 800 }
const PHONE = { width: 390, height: 844 }
// Provoked on purpose: 415 for a text file uploaded as a model.
const EXPECTED = [415]

let server: Tessera
let receiver: Awaited<ReturnType<typeof startReceiver>>
let browser: Browser
let context: BrowserContext
let page: Page
let errors: string[]

async function openFolder(p: Page, folder: string): Promise<void> {
  await p.goto(`${server.baseUrl}/files?path=${encodeURIComponent(folder)}`)
  await p.locator('.list:not(.loading)').first().waitFor()
}

function upload(p: Page, files: { name: string; buffer: Buffer }[]): Promise<void> {
  const list = files.map((f) => ({ ...f, mimeType: 'application/octet-stream' }))
  return p.getByTestId('upload-input').setInputFiles(list)
}

function trayItem(p: Page, name: string) {
  return p.locator('.uploads li', { hasText: name })
}

describe('files, uploads and webhooks in Chromium', { timeout: 240_000 }, () => {
  before(async () => {
    server = await startTessera()
    receiver = await startReceiver()
    browser = await launch()
    context = await browser.newContext({ viewport: DESKTOP })
    page = await context.newPage()
    await signInAsAdmin(page, server)
    // After the sign-in: the first visit's session check answers 401 (no cookies yet) by design.
    errors = collectErrors(page, EXPECTED)
  })

  after(async () => {
    await browser?.close()
    receiver?.stop()
    await server?.stop()
  })

  it('"New folder" is an inline form: Esc cancels, an empty folder stays listed, bad names are explained', async () => {
    await openFolder(page, '/')
    const newFolder = page.getByRole('button', { name: 'New folder' })
    await newFolder.click()
    const name = page.getByRole('textbox', { name: 'Folder name' })
    await name.waitFor({ timeout: 15_000 })
    assert.equal(await name.evaluate((el) => el === document.activeElement), true, 'the field has focus')
    await name.press('Escape')
    await name.waitFor({ state: 'detached' })
    assert.equal(await newFolder.evaluate((el) => el === document.activeElement), true, 'focus returns')
    await newFolder.click()
    await name.fill('..')
    await name.press('Enter')
    await page
      .getByRole('alert')
      .filter({ hasText: /“\.\.”/ })
      .waitFor()
    await name.fill('Empty')
    await page.screenshot({ path: path.join(SHOTS, 'files-new-folder.png') })
    await name.press('Enter')
    await page.waitForURL(/path=%2FEmpty$/)
    await page.getByRole('heading', { name: 'Empty' }).waitFor()
    await page.getByRole('link', { name: 'My files' }).click()
    // The server knows folders only as paths of files: the empty one is kept for this session.
    await page.getByRole('link', { name: 'Empty' }).waitFor()
    await page.reload()
    await page.getByRole('link', { name: 'Empty' }).waitFor()
    // A name with "/" creates the folders on the way.
    await page.getByRole('button', { name: 'New folder' }).click()
    await page.getByRole('textbox', { name: 'Folder name' }).fill('Drafts/2026')
    await page.getByRole('button', { name: 'Create folder' }).click()
    await page.waitForURL(/path=%2FDrafts%2F2026$/)
    await page.getByRole('navigation', { name: 'Folder' }).getByRole('link', { name: 'Drafts' }).click()
    await page.getByRole('link', { name: '2026' }).waitFor()
  })

  it('sorts names case-insensitively, numbers by value', async () => {
    await openFolder(page, '/Sorted')
    const names = ['beta.glb', 'Alpha.glb', 'alpha10.glb', 'alpha9.glb', 'Zulu.glb', 'apple.glb']
    await upload(
      page,
      names.map((name) => ({ name, buffer: brokenGlb() })),
    )
    await page.locator('section.list[data-count="6"]').waitFor({ timeout: 30_000 })
    const order = await page.locator('.row[data-file]').evaluateAll((rows) => rows.map((r) => r.dataset.file))
    assert.deepEqual(order, ['Alpha.glb', 'alpha9.glb', 'alpha10.glb', 'apple.glb', 'beta.glb', 'Zulu.glb'])
  })

  it('the file list: one Tab stop per file, named by the file, status and size described apart', async () => {
    await openFolder(page, '/Sorted')
    const alpha = page.getByRole('button', { name: 'Alpha.glb', exact: true })
    await alpha.waitFor({ timeout: 15_000 })
    await page.locator('.row[data-file="Alpha.glb"] [data-state="error"]').waitFor({ timeout: 60_000 })
    const described = await alpha.evaluate((el) =>
      (el.getAttribute('aria-describedby') ?? '')
        .split(/\s+/)
        .map((id) => document.getElementById(id)?.textContent?.trim()),
    )
    assert.equal(described[0], 'Failed')
    assert.match(described[1] ?? '', /^68 B · /)
    await alpha.focus()
    await page.keyboard.press('Tab')
    const next = await page.evaluate(() => document.activeElement?.textContent)
    assert.equal(next, 'alpha9.glb', 'Tab goes from one file to the next')
    // A ready file: its tag's contrast and the page's accessibility (axe-core).
    await openFolder(page, '/A11y')
    await upload(page, [{ name: 'cube.stl', buffer: stlCube(2) }])
    await page.locator('.row[data-file="cube.stl"] [data-state="ready"]').waitFor({ timeout: 90_000 })
    await page.getByRole('button', { name: 'Clear finished' }).click()
    const findings = blocking(await axe(page, [], 'body'))
    assert.deepEqual(findings, [], describeFindings(findings))
  })

  it('a failed upload is shown as failed, with its reason and folder; "Clear finished" clears it too', async () => {
    await openFolder(page, '/Inbox')
    await upload(page, [
      { name: 'notes.txt', buffer: Buffer.from('not a model at all\n') },
      { name: 'broken.glb', buffer: brokenGlb() },
      { name: 'cube.stl', buffer: stlCube(1) },
    ])
    const notes = trayItem(page, 'notes.txt')
    await notes.and(page.locator('[data-phase="error"]')).waitFor()
    assert.equal(await notes.locator('progress').count(), 0, 'no full progress bar for a failure')
    assert.match((await notes.locator('.status').textContent()) ?? '', /^Failed: .*(format|support)/i)
    await notes.getByRole('link', { name: 'Inbox' }).waitFor()
    const colours = await notes.locator('.status').evaluate((el) => {
      const probe = document.createElement('span')
      probe.style.color = 'var(--danger)'
      document.body.append(probe)
      const danger = getComputedStyle(probe).color
      probe.remove()
      return { status: getComputedStyle(el).color, danger }
    })
    assert.equal(colours.status, colours.danger, 'the reason is in the danger colour')
    await trayItem(page, 'broken.glb').and(page.locator('[data-phase="error"]')).waitFor({ timeout: 60_000 })
    await trayItem(page, 'cube.stl').and(page.locator('[data-phase="ready"]')).waitFor({ timeout: 90_000 })
    await page.screenshot({ path: path.join(SHOTS, 'files-upload-failed.png') })
    await page.getByRole('button', { name: 'Clear finished' }).click()
    await page.locator('.uploads').waitFor({ state: 'detached' })
  })

  it('an upload lives across screens, and a reload while bytes are in flight asks first', async () => {
    await openFolder(page, '/Projects')
    const cdp = await context.newCDPSession(page)
    // 1 MB at 96 KB/s: about ten seconds of bytes in flight.
    await throttleUploads(cdp, 96 * 1024)
    await upload(page, [{ name: 'strip.stl', buffer: binaryStl(20_000) }])
    const item = trayItem(page, 'strip.stl')
    await item.and(page.locator('[data-phase="uploading"]')).waitFor()
    await page.getByRole('link', { name: 'Webhooks' }).click()
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor()
    await item.and(page.locator('[data-phase="uploading"]')).waitFor({ timeout: 15_000 })
    const before = Number(await item.locator('progress').getAttribute('value'))
    await page.waitForFunction(
      (value) => Number(document.querySelector('.uploads li progress')?.getAttribute('value')) > value,
      before,
      { timeout: 10_000 },
    )
    await page.screenshot({ path: path.join(SHOTS, 'upload-tray-webhooks.png') })
    // A reload mid-upload: the browser's "leave the page?" dialog; staying keeps the upload.
    const dialogs: string[] = []
    page.once('dialog', (dialog) => {
      dialogs.push(dialog.type())
      void dialog.dismiss()
    })
    await page.evaluate(() => {
      setTimeout(() => window.location.reload(), 0)
    })
    await page.waitForTimeout(1500)
    assert.deepEqual(dialogs, ['beforeunload'])
    await page.getByRole('link', { name: 'Files', exact: true }).click()
    await item.and(page.locator('[data-phase="uploading"]')).waitFor({ timeout: 15_000 })
    await item
      .and(page.locator('[data-phase="converting"], [data-phase="ready"]'))
      .waitFor({ timeout: 60_000 })
    await throttleUploads(cdp, -1)
    await cdp.detach()
    await item.getByRole('link', { name: 'Projects' }).click()
    await page.locator('.row[data-file="strip.stl"]').waitFor()
  })

  it('"← Files" in the viewer returns to the folder the file is in', async () => {
    await openFolder(page, '/Viewing/Parts')
    await upload(page, [{ name: 'part.stl', buffer: stlCube(1) }])
    const row = page.locator('.row[data-file="part.stl"]')
    await row.locator('[data-state="ready"]').waitFor({ timeout: 90_000 })
    await row.click()
    await page.getByRole('link', { name: 'Open viewer' }).click()
    await page.waitForURL(/\/view\//)
    await page.getByRole('heading', { name: 'part.stl' }).waitFor()
    await page.getByRole('link', { name: '← Files' }).click()
    await page.waitForURL(/\/files\?path=%2FViewing%2FParts$/)
    await page.getByRole('heading', { name: 'Parts' }).waitFor()
    await page.locator('.row[data-file="part.stl"]').waitFor()
  })

  it("opening a delivery's attempts asks for them once, not in a loop", async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click()
    await page.getByLabel('URL').first().fill(receiver.url)
    await page.getByRole('button', { name: 'Generate' }).first().click()
    await page.getByRole('button', { name: 'Create webhook' }).click()
    await page.getByRole('button', { name: 'Deliveries' }).click()
    await page.getByRole('button', { name: 'Send test event' }).click()
    const delivery = page.locator('tr[data-delivery]').first()
    await delivery.locator('.tag.succeeded').waitFor({ timeout: 20_000 })
    const requests: string[] = []
    const count = (request: { url(): string }) => {
      if (/^\/webhook\/[^/]+\/deliveries\/[^/]+$/.test(new URL(request.url()).pathname))
        requests.push(request.url())
    }
    page.on('request', count)
    await delivery.getByRole('button', { name: 'Attempts' }).click()
    await page.locator('[data-attempt="1"]').waitFor()
    await page.waitForTimeout(2000)
    page.off('request', count)
    // One to open it; the log's 3 s refresh may add one more within the window.
    assert.ok(requests.length <= 2, `${requests.length} requests for one delivery's attempts in 2 s`)
  })

  it('shows the webhook URL on a phone, and nothing scrolls sideways', async () => {
    // The phone's sign-in supersedes the desktop session: that page is done first.
    assert.deepEqual(errors, [])
    await page.close()
    const phone = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 1 })
    const p = await phone.newPage()
    await signInAsAdmin(p, server)
    const phoneErrors = collectErrors(p, EXPECTED)
    await p.getByRole('link', { name: 'Webhooks' }).click()
    const url = p.locator('[data-webhook] .url').first()
    await url.waitFor()
    assert.equal(await url.isVisible(), true)
    const fits = await url.evaluate((el) => {
      const box = el.getBoundingClientRect()
      return { text: el.textContent, full: el.scrollWidth <= el.clientWidth + 1, right: box.right }
    })
    assert.equal(fits.text, receiver.url)
    assert.ok(fits.full, 'the URL is not cut off')
    assert.ok(fits.right <= PHONE.width, `the URL ends at ${fits.right} px`)
    const width = await p.evaluate(() => document.documentElement.scrollWidth)
    assert.ok(width <= PHONE.width, `the page is ${width} px wide`)
    await p.screenshot({ path: path.join(SHOTS, 'phone-webhooks.png') })
    // The delivery log too: the screen stays 390 px wide (a wide table scrolls in its own box) and
    // a delivery's buttons are reachable.
    await p.getByRole('button', { name: 'Deliveries' }).first().click()
    const delivery = p.locator('tr[data-delivery]').first()
    await delivery.waitFor()
    const overflow = await p.evaluate(() =>
      [document.documentElement, document.querySelector('main')].map((el) =>
        el ? el.scrollWidth - el.clientWidth : 0,
      ),
    )
    assert.deepEqual(overflow, [0, 0], 'neither the page nor the screen scrolls sideways')
    await delivery.getByRole('button', { name: 'Attempts' }).click()
    await p.locator('[data-attempt="1"]').waitFor()
    assert.deepEqual(phoneErrors, [])
    await phone.close()
  })
})

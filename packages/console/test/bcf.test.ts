// BCF in the viewer, in Chromium against a real `tessera serve`, on the server's IFC house uploaded
// twice (A and B). The owner imports the server's BCF 2.1 fixture into A by keyboard (the button
// opens the file picker): a busy state while it is sent, then the result in the status region (the
// notes and the GlobalId the model lacks in a disclosure) and the new annotations in the list, axe
// clean in light and dark, with screenshots; a file that is no BCF shows the server's words in the
// error notice. Export BCF downloads house-a.bcfzip (a zip holding bcf.version), which imported into
// B makes the annotations there. An editor imports too (the same topics again: nothing new); a
// viewer and a link's guest export, and have no import.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { bcfFixtureZip } from '@tessera/server/test/support/bcf-fixtures.ts'
import type { Browser, Page } from 'playwright-core'
import { apiSession } from './support/api-session.ts'
import { axe, blocking, describeFindings } from './support/axe.ts'
import { collectErrors, launch, signInAsAdmin } from './support/browser.ts'
import { houseWithProperties } from './support/property-models.ts'
import { startTessera, type Tessera } from './support/server.ts'

const SHOTS = path.resolve(import.meta.dirname, '../../../docs/console')
const DESKTOP = { width: 1280, height: 800 }
const PASSWORD = 'bcf-test-password-1'
const WALLS = 'South and east walls overlap at the corner'
const SLAB = 'Floor slab finish level'

let server: Tessera
let browser: Browser
let owner: Page
let ownerErrors: string[]
let houseA = ''
let houseB = ''
let linkAddress = ''

const section = (p: Page) => p.getByRole('region', { name: /^BCF/ })
const status = (p: Page) => section(p).getByRole('status')
const exportButton = (p: Page) => section(p).getByRole('button', { name: 'Export BCF' })
const importButton = (p: Page) => section(p).getByRole('button', { name: /^Import/ })
const item = (p: Page, name: string) => p.locator(`.annotations li[data-annotation="${name}"]`)

async function openViewer(p: Page, file: string): Promise<void> {
  await p.goto(`${server.baseUrl}/view/${file}`)
  await p.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
  await p.getByRole('tab', { name: /Annotations/ }).click()
}

async function signIn(username: string): Promise<{ page: Page; errors: string[] }> {
  const page = interceptPickers(await (await browser.newContext({ viewport: DESKTOP })).newPage())
  const errors = collectErrors(page, [401])
  await page.goto(server.baseUrl)
  await page.getByLabel('Username').fill(username)
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'My files' }).waitFor()
  return { page, errors }
}

/**
 * Playwright intercepts file pickers only once a listener is registered, which it tells the browser
 * asynchronously: a page that will pick files gets one at its start, so a press never outruns it.
 */
function interceptPickers(p: Page): Page {
  p.on('filechooser', () => {})
  return p
}

/** Picks `bytes` as `name` through the picker that the focused Import button opens with Enter. */
async function importByKeyboard(p: Page, name: string, bytes: Uint8Array): Promise<void> {
  await importButton(p).focus()
  const [chooser] = await Promise.all([p.waitForEvent('filechooser'), p.keyboard.press('Enter')])
  await chooser.setFiles({ name, mimeType: 'application/zip', buffer: Buffer.from(bytes) })
}

/** Export BCF's download: its name and bytes. */
async function download(p: Page): Promise<{ name: string; bytes: Buffer }> {
  const [file] = await Promise.all([p.waitForEvent('download'), exportButton(p).click()])
  return { name: file.suggestedFilename(), bytes: await readFile(await file.path()) }
}

async function themed(p: Page, theme: 'light' | 'dark'): Promise<void> {
  await p.emulateMedia({ colorScheme: theme })
  await p.waitForFunction((t) => document.documentElement.dataset.theme === t, theme)
  await p.waitForTimeout(200)
}

describe('BCF export and import in the viewer', { timeout: 300_000 }, () => {
  before(async () => {
    server = await startTessera({ TESSERA_LICENSES: '10' })
    for (const name of ['erin', 'vic']) {
      await server.cli(
        ['accounts', 'create', '--email', `${name}@example.com`, '--username', name],
        `${PASSWORD}\n`,
      )
    }
    // Prepared through the API before the page signs in (a session of admin supersedes another).
    const api = await apiSession(server.baseUrl, 'admin', server.adminPassword)
    const [a, b] = await Promise.all([
      api.uploadReady('house-a.ifc', houseWithProperties()),
      api.uploadReady('house-b.ifc', houseWithProperties()),
    ])
    houseA = a._id
    houseB = b._id
    await api.call('POST', `/file/${houseA}/share`, { email: 'erin@example.com', role: 'editor' })
    await api.call('POST', `/file/${houseA}/share`, { email: 'vic@example.com', role: 'viewer' })
    linkAddress = `${server.baseUrl}/#/link/${(await api.call<{ token: string }>('POST', `/file/${houseA}/link`, {})).token}`
    browser = await launch()
    owner = interceptPickers(await (await browser.newContext({ viewport: DESKTOP })).newPage())
    // 400: the file that is no BCF, on purpose.
    ownerErrors = collectErrors(owner, [401, 400])
    await signInAsAdmin(owner, server)
  })

  after(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('owner: Import BCF… by keyboard, busy while sent, then the result and the new annotations', async () => {
    await openViewer(owner, houseA)
    // The request waits until the busy state was seen.
    let release = () => {}
    const held = new Promise<void>((r) => {
      release = r
    })
    await owner.route('**/file/*/bcf', async (route) => {
      if (route.request().method() === 'POST') await held
      await route.continue()
    })
    await importByKeyboard(owner, 'house-v21.bcfzip', bcfFixtureZip('v21'))
    await status(owner).getByText('Importing house-v21.bcfzip…').waitFor()
    assert.equal(await importButton(owner).getAttribute('aria-disabled'), 'true')
    assert.equal(await importButton(owner).textContent(), 'Importing…')
    assert.equal(await owner.evaluate(() => document.activeElement?.textContent), 'Importing…', 'focus kept')
    release()
    await status(owner).locator('p.ok').waitFor()
    await owner.unroute('**/file/*/bcf')
    assert.equal(
      await status(owner).locator('p.ok').textContent(),
      'Imported BCF 2.1: 2 topics → 2 annotations, 2 saved views, 3 comments. 1 component not in this model.',
    )
    assert.equal(await importButton(owner).textContent(), 'Import BCF…')
    await item(owner, WALLS).waitFor()
    await item(owner, SLAB).waitFor()
    await owner.getByRole('tab', { name: 'Views (2)' }).waitFor()
    const details = status(owner).locator('details')
    await details.locator('summary').focus()
    await owner.keyboard.press('Enter')
    await details.getByText('3ZzzzzzzzzzzzzzzzzzzzZ').waitFor()
    await details.locator('.bcf-ids').scrollIntoViewIfNeeded()
    await owner.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
    for (const theme of ['light', 'dark'] as const) {
      await themed(owner, theme)
      const findings = blocking(await axe(owner))
      assert.deepEqual(findings, [], `${theme}: ${describeFindings(findings)}`)
      await owner.screenshot({ path: path.join(SHOTS, `bcf-import-${theme}.png`) })
    }
    await themed(owner, 'light')
    // The result stays through a visit to Parts; Views shows the same section.
    await owner.getByRole('tab', { name: /Parts/ }).click()
    assert.equal(await section(owner).count(), 0, 'hidden on the Parts tab')
    await owner.getByRole('tab', { name: /Views/ }).click()
    await status(owner)
      .getByText(/^Imported BCF 2\.1/)
      .waitFor()
  })

  it("owner: a file that is no BCF shows the server's words in the error notice", async () => {
    await owner.getByRole('tab', { name: /Annotations/ }).click()
    await importByKeyboard(owner, 'notes.bcfzip', new TextEncoder().encode('not a zip'))
    const alert = section(owner).getByRole('alert')
    await alert.waitFor()
    const text = (await alert.textContent()) ?? ''
    assert.ok(text.length > 10 && !text.includes('BCF_INVALID'), text)
    assert.equal(await section(owner).locator('.bcf-status').textContent(), '', 'no result beside the error')
  })

  it('owner: Export BCF downloads house-a.bcfzip, which imported into B makes the annotations there', async () => {
    const { name, bytes } = await download(owner)
    assert.equal(name, 'house-a.bcfzip')
    assert.equal(bytes.subarray(0, 4).toString('latin1'), 'PK\u0003\u0004', 'a zip')
    assert.ok(bytes.includes('bcf.version'), 'it holds bcf.version')
    await status(owner).getByText('Exported house-a.bcfzip.').waitFor()
    assert.equal(await section(owner).getByRole('alert').count(), 0, 'the error went')
    await openViewer(owner, houseB)
    await owner.locator('.annotations').getByText('No annotations yet.').waitFor()
    await importByKeyboard(owner, name, bytes)
    // A's two annotations and two saved views, a topic each, become the same in B.
    await status(owner)
      .getByText('Imported BCF 3.0: 4 topics → 2 annotations, 2 saved views, 3 comments.', { exact: true })
      .waitFor()
    await item(owner, WALLS).waitFor()
    await item(owner, SLAB).waitFor()
    assert.deepEqual(ownerErrors, [])
  })

  it('editor: Import BCF… is offered; the same topics again make nothing new', async () => {
    const { page, errors } = await signIn('erin')
    await openViewer(page, houseA)
    await exportButton(page).waitFor()
    await importByKeyboard(page, 'house-v21.bcfzip', bcfFixtureZip('v21'))
    await status(page)
      .getByText(/^Imported BCF 2\.1/)
      .waitFor()
    assert.equal(
      await status(page).locator('p.ok').textContent(),
      'Imported BCF 2.1: 2 topics → 0 annotations, 0 saved views, 0 comments. 2 topics were here already. 1 component not in this model.',
    )
    assert.deepEqual(errors, [])
    await page.context().close()
  })

  it('viewer: Export BCF, no import', async () => {
    const { page, errors } = await signIn('vic')
    await openViewer(page, houseA)
    await exportButton(page).waitFor()
    assert.equal(await importButton(page).count(), 0)
    assert.equal(await page.getByTestId('bcf-input').count(), 0)
    assert.equal((await download(page)).name, 'house-a.bcfzip')
    assert.deepEqual(errors, [])
    await page.context().close()
  })

  it('link guest: Export BCF, no import', async () => {
    const page = await (await browser.newContext({ viewport: DESKTOP })).newPage()
    const errors = collectErrors(page)
    await page.goto(linkAddress)
    await page.getByTestId('link-banner').waitFor()
    await page.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
    await page.getByRole('tab', { name: /Views/ }).click()
    await exportButton(page).waitFor()
    assert.equal(await importButton(page).count(), 0)
    const { name, bytes } = await download(page)
    assert.equal(name, 'house-a.bcfzip')
    assert.ok(bytes.includes('bcf.version'))
    assert.deepEqual(errors, [])
    await page.context().close()
  })
})

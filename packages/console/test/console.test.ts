// The console end to end: a real `tessera serve` (SQLite, temp dir), real Chromium (software
// WebGL), every screen walked in order, with screenshots saved into docs/console/.
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { collectErrors, launch, paintedShare } from './support/browser.ts'
import { carGlb, ifcHouse, stlCube } from './support/models.ts'
import { startReceiver, startTessera, type Tessera } from './support/server.ts'

const SHOTS = path.resolve(import.meta.dirname, '../../../docs/console')
const DESKTOP = { width: 1280, height: 800 }
const PHONE = { width: 390, height: 844 }
// Provoked on purpose: 401 wrong password / superseded, 402 no license, 429 throttled, 404 routes
// this server does not have yet (shared listing, admin).
const EXPECTED = [401, 402, 404, 429]

let server: Tessera
let receiver: Awaited<ReturnType<typeof startReceiver>>
let browser: Browser
let context: BrowserContext
let page: Page
let errors: string[]

async function shot(p: Page, name: string): Promise<void> {
  await p.screenshot({ path: path.join(SHOTS, `${name}.png`) })
}

async function signIn(p: Page, username: string, password: string): Promise<void> {
  await p.getByLabel('Username').fill(username)
  await p.getByLabel('Password', { exact: true }).fill(password)
  await p.getByRole('button', { name: 'Sign in' }).click()
}

function row(p: Page, name: string) {
  return p.locator(`.row[data-file="${name}"]`)
}

describe('console in Chromium', { timeout: 240_000 }, () => {
  before(async () => {
    mkdirSync(SHOTS, { recursive: true })
    server = await startTessera({ TESSERA_LICENSES: '1' })
    await server.cli(
      ['accounts', 'create', '--email', 'bob@example.com', '--username', 'bob'],
      'bob-password-1\n',
    )
    receiver = await startReceiver()
    browser = await launch()
    context = await browser.newContext({ viewport: DESKTOP })
    page = await context.newPage()
    errors = collectErrors(page, EXPECTED)
  })

  after(async () => {
    await browser?.close()
    receiver?.stop()
    await server?.stop()
  })

  it('serves the console with its CSP, and index.html for client routes only', async () => {
    const root = await fetch(`${server.baseUrl}/`)
    assert.equal(root.status, 200)
    assert.match(root.headers.get('content-security-policy') ?? '', /script-src 'self' 'wasm-unsafe-eval'/)
    const deep = await fetch(`${server.baseUrl}/view/abc`, { headers: { accept: 'text/html' } })
    assert.equal(deep.status, 200)
    assert.match(await deep.text(), /<div id="app">/)
    const api = await fetch(`${server.baseUrl}/file/nope/x`, { headers: { accept: 'text/html' } })
    assert.equal(api.status, 404)
    const json = await fetch(`${server.baseUrl}/nope`)
    assert.equal(((await json.json()) as { code: string }).code, 'ROUTE_NOT_FOUND')
  })

  it('serves the API reference at /docs without breaking its own CSP', async () => {
    const docs = await context.newPage()
    const docsErrors = collectErrors(docs)
    await docs.goto(`${server.baseUrl}/docs`)
    await docs.getByRole('heading', { name: /Tessera API/ }).waitFor()
    await docs.getByText('/account/login/').first().waitFor()
    // A CSP violation (an inline <style> Swagger UI adds, say) is a console error here.
    assert.deepEqual(docsErrors, [])
    await docs.close()
  })

  it('refuses a wrong password with a clear message', async () => {
    await page.goto(server.baseUrl)
    await signIn(page, 'admin', 'not-the-password')
    await page.getByText('Wrong username or password.').waitFor()
    await shot(page, 'sign-in-wrong-password')
  })

  it('signs in, and a second account gets "no license" (402) while the only one is held', async () => {
    await signIn(page, 'admin', server.adminPassword)
    await page.getByRole('heading', { name: 'My files' }).waitFor()
    const other = await context.browser()?.newContext({ viewport: DESKTOP })
    assert.ok(other)
    const bob = await other.newPage()
    const bobErrors = collectErrors(bob, EXPECTED)
    await bob.goto(server.baseUrl)
    await signIn(bob, 'bob', 'bob-password-1')
    await bob.getByText(/No license is available/).waitFor()
    await shot(bob, 'sign-in-no-license')
    // Throttling: the 11th failure in a row for one username answers 429.
    for (let i = 0; i < 11; i++) {
      await signIn(bob, 'mallory', `wrong-${i}-password`)
      await bob.locator('.signin .error').waitFor()
      await bob.getByRole('button', { name: 'Sign in' }).isEnabled()
    }
    await bob.getByText(/Too many failed sign-in attempts/).waitFor()
    await shot(bob, 'sign-in-rate-limited')
    assert.deepEqual(bobErrors, [])
    await other.close()
  })

  it('uploads three formats (and one it cannot convert) and sees them change state live', async () => {
    const car = await carGlb()
    await page.getByTestId('upload-input').setInputFiles([
      { name: 'small-house.ifc', mimeType: 'application/octet-stream', buffer: ifcHouse() },
      { name: 'cube.stl', mimeType: 'model/stl', buffer: stlCube(2) },
      { name: 'car.glb', mimeType: 'model/gltf-binary', buffer: Buffer.from(car) },
    ])
    // The fourth file arrives by drag and drop: a GLB by its name and first bytes (so the upload is
    // accepted; an unconvertible format would be refused with 415 before anything is kept) whose
    // content cannot be parsed, so its conversion fails.
    await page.evaluate(() => {
      const data = new DataTransfer()
      data.items.add(new File(['glTF', new Uint8Array(64).fill(7)], 'broken.glb'))
      const target = document.querySelector('section.files') as HTMLElement
      target.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }))
      target.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }))
    })
    await page.locator('.uploads li').nth(3).waitFor()
    // The list follows each finished upload: all four are listed (in whatever state they reached).
    await page.locator('section.list[data-count="4"]').waitFor()
    await shot(page, 'files-uploading')
    for (const name of ['small-house.ifc', 'cube.stl', 'car.glb']) {
      await row(page, name).locator('[data-state="ready"]').waitFor({ timeout: 120_000 })
    }
    await row(page, 'broken.glb').locator('[data-state="error"]').waitFor({ timeout: 60_000 })
    await row(page, 'broken.glb').click()
    const reason = await page.getByTestId('failure-reason').textContent()
    assert.match(reason ?? '', /gl(b|tf)|read|pars|invalid|corrupt/i)
    await shot(page, 'files-failed-conversion')
  })

  it('stays signed in across a reload: the tokens are HttpOnly cookies, never in the page', async () => {
    const cookies = await page.context().cookies(server.baseUrl)
    assert.deepEqual(cookies.map((c) => [c.name, c.httpOnly]).sort(), [
      ['X-Service-Session', true],
      ['jsonwebtoken', true],
    ])
    assert.equal(await page.evaluate(() => document.cookie), '', 'no token readable by scripts')
    await page.reload()
    await page.getByRole('heading', { name: 'My files' }).waitFor()
    await row(page, 'car.glb').waitFor()
    assert.equal(await page.getByRole('heading', { name: 'Sign in to Tessera' }).count(), 0)
  })

  it('keeps the list live on the event stream: no polling once nothing converts', async () => {
    // The fallback poll runs every 10 s, and only while the event stream is not open: 11 s without
    // a listing request means the stream is what keeps the list live.
    const listings: string[] = []
    const count = (request: { url(): string }) => {
      if (new URL(request.url()).pathname.startsWith('/file/dir/private')) listings.push(request.url())
    }
    page.on('request', count)
    await page.waitForTimeout(11_000)
    page.off('request', count)
    assert.deepEqual(listings, [], 'listing requests while idle')
  })

  it('shares a file and revokes the share', async () => {
    await row(page, 'cube.stl').click()
    await page.getByLabel('E-mail to share with').fill('bob@example.com')
    await page.getByRole('button', { name: 'Share', exact: true }).click()
    await page.getByText('Shared with bob@example.com.').waitFor()
    await shot(page, 'files-details-share')
    await page.getByRole('button', { name: 'Revoke bob@example.com' }).click()
    await page.getByText('Revoked bob@example.com.').waitFor()
  })

  it('uploads a new revision: the details list both, the earlier one downloadable', async () => {
    // cube.stl's details are still open (the share step).
    await page.getByTestId('revision-input').setInputFiles({
      name: 'cube-v2.stl',
      mimeType: 'model/stl',
      buffer: stlCube(3),
    })
    const revisions = page.locator('section[aria-label="Revisions"] li')
    await revisions.nth(1).waitFor({ timeout: 60_000 })
    assert.equal(await revisions.count(), 2)
    await revisions.first().getByText('current').waitFor()
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: /^Download revision \d+$/ }).click(),
    ])
    assert.equal(download.suggestedFilename(), 'cube.stl')
    await row(page, 'cube.stl').locator('[data-state="ready"]').waitFor({ timeout: 120_000 })
  })

  it('opens the viewer: the model is drawn and the tree shows its parts', async () => {
    await row(page, 'car.glb').click()
    await page.getByRole('link', { name: 'Open viewer' }).click()
    await page.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
    await page.waitForTimeout(300)
    const share = await paintedShare(page)
    assert.ok(share > 0.02, `only ${(share * 100).toFixed(1)}% of the canvas is drawn`)
    for (const name of ['Car', 'Body']) await page.locator('.tree .node', { hasText: name }).first().waitFor()
    assert.equal(await page.locator('.tree .node', { hasText: 'Wheel' }).count(), 4)
    await shot(page, 'viewer')
  })

  it('clicking a part selects its node, and attributes can be set', async () => {
    const body = page.locator('.tree .node', { hasText: 'Body' })
    await body.click()
    await page.getByRole('button', { name: 'Fit selection' }).click()
    await page.waitForTimeout(800)
    await page.locator('.tree .node', { hasText: 'Car' }).click()
    // The scene tree is a WAI-ARIA tree: the selected row is the treeitem with aria-selected.
    assert.equal(await page.locator('.tree [aria-selected="true"]', { hasText: 'Body' }).count(), 0)
    const canvas = page.locator('.viewport canvas')
    const boxOf = await canvas.boundingBox()
    assert.ok(boxOf)
    await page.mouse.click(boxOf.x + boxOf.width / 2, boxOf.y + boxOf.height / 2)
    await page.locator('.tree [aria-selected="true"]', { hasText: 'Body' }).waitFor()
    await page.getByLabel('Attribute name').fill('material')
    await page.getByLabel('Attribute value').fill('steel')
    await page.getByRole('button', { name: 'Set', exact: true }).click()
    await page.getByLabel('Value of material').waitFor()
    assert.equal(await page.getByLabel('Value of material').inputValue(), 'steel')
    await shot(page, 'viewer-attributes')
  })

  it('places an annotation by clicking the model', async () => {
    await page.getByRole('tab', { name: /Annotations/ }).click()
    await page.getByRole('button', { name: 'Place annotation' }).click()
    const box = await page.locator('.viewport canvas').boundingBox()
    assert.ok(box)
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2)
    await page.getByLabel('Title').fill('Check the weld')
    await page.getByLabel('Text').fill('Seam looks thin here.')
    await page.getByRole('button', { name: 'Save annotation' }).click()
    await page.getByRole('button', { name: 'Check the weld', exact: true }).click()
    await page.getByText('Seam looks thin here.').waitFor()
    await shot(page, 'viewer-annotations')
  })

  it('saves a view, moves the camera, and restores it', async () => {
    await page.getByRole('tab', { name: /Views/ }).click()
    await page.getByLabel('View name').fill('Three-quarter')
    const saved = await page.locator('.viewport').getAttribute('data-camera')
    await page.getByRole('button', { name: 'Save current view' }).click()
    await page.getByRole('button', { name: 'Restore Three-quarter' }).waitFor()
    const box = await page.locator('.viewport canvas').boundingBox()
    assert.ok(box)
    // The viewer writes data-camera when it renders the next frame, which software WebGL on a busy
    // machine may draw only after this test reads it: wait for the frame, then compare.
    const cameraIs = (expected: string | null, equal: boolean, timeout: number) =>
      page.waitForFunction(
        ([value, same]) =>
          (document.querySelector('.viewport')?.getAttribute('data-camera') === value) === same,
        [expected, equal] as const,
        { timeout },
      )
    // Right after opening an annotation (previous step) its 600 ms fly-to may still run: the drag
    // must end it, not be undone by it (on CI the drag came within the flight and was lost).
    await page.mouse.move(box.x + 100, box.y + 100)
    await page.mouse.down()
    await page.mouse.move(box.x + 300, box.y + 180, { steps: 8 })
    await page.mouse.up()
    await cameraIs(saved, false, 10_000)
    await page.waitForTimeout(700) // past any flight: the drag's camera must stay
    assert.notEqual(await page.locator('.viewport').getAttribute('data-camera'), saved)
    await page.getByRole('button', { name: 'Restore Three-quarter' }).click()
    await cameraIs(saved, true, 10_000)
    assert.equal(await page.locator('.viewport').getAttribute('data-camera'), saved)
    await shot(page, 'viewer-views')
  })

  it('creates a webhook to a local receiver, sees its delivery and retries it', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click()
    await page.getByLabel('URL').first().fill(receiver.url)
    await page.getByRole('button', { name: 'Generate' }).first().click()
    await page
      .getByText(/Strong|Good/)
      .first()
      .waitFor()
    await page.getByRole('button', { name: 'Create webhook' }).click()
    await page.getByRole('button', { name: 'Deliveries' }).click()
    await page.getByRole('button', { name: 'Send test event' }).click()
    const delivery = page.locator('tr[data-delivery]').first()
    await delivery.locator('.tag.succeeded').waitFor({ timeout: 20_000 })
    assert.ok(receiver.received.length >= 1)
    await delivery.getByRole('button', { name: 'Retry' }).click()
    await page.getByText('Retry queued.').waitFor()
    await page.waitForFunction(
      () => document.querySelector('tr[data-delivery] td:nth-child(4)')?.textContent === '2',
      null,
      {
        timeout: 20_000,
      },
    )
    await delivery.getByRole('button', { name: 'Attempts' }).click()
    await page.locator('[data-attempt="2"]').waitFor()
    await page.screenshot({ path: path.join(SHOTS, 'webhooks.png'), fullPage: true })
    // Disabled by its owner, the row says so (with the reason the API gives); enabled again.
    const row = page.locator('tr[data-webhook]').first()
    await row.getByRole('button', { name: 'Disable' }).click()
    await row.locator('.tag.off[data-reason="owner"]').waitFor()
    await row.getByRole('button', { name: 'Enable' }).click()
    await row.locator('.tag.on').waitFor()
  })

  it('shows the account screen: licenses in use, and an admin disables and enables an account', async () => {
    await page.getByRole('link', { name: 'Account' }).click()
    await page.getByRole('heading', { name: 'Change password' }).waitFor()
    await page.locator('[aria-label="Administration"], .card h2:text("Accounts")').first().waitFor()
    // One license (TESSERA_LICENSES=1), held by this page's session.
    await page.getByText(/^1 in use of 1$/).waitFor()
    await page.locator('li', { hasText: /^admin since / }).waitFor()
    const bob = page.getByRole('row', { name: /bob@example\.com/ })
    await bob.getByRole('button', { name: 'Disable' }).click()
    await bob.getByRole('cell', { name: 'disabled', exact: true }).waitFor()
    await shot(page, 'account')
    await bob.getByRole('button', { name: 'Enable' }).click()
    await bob.getByRole('cell', { name: 'enabled', exact: true }).waitFor()
  })

  it('is usable on a phone-sized screen', async () => {
    const phone = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 1 })
    const p = await phone.newPage()
    const phoneErrors = collectErrors(p, EXPECTED)
    await p.goto(server.baseUrl)
    await signIn(p, 'admin', server.adminPassword)
    await p.getByRole('heading', { name: 'My files' }).waitFor()
    await row(p, 'car.glb').waitFor()
    await shot(p, 'phone-files')
    await row(p, 'car.glb').click()
    await p.getByRole('link', { name: 'Open viewer' }).click()
    await p.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
    // The parts tree loads after the model: a loaded machine once caught "Loading parts…".
    await p.getByPlaceholder('Search parts').waitFor()
    await shot(p, 'phone-viewer')
    assert.deepEqual(phoneErrors, [])
    await phone.close()
  })

  it('a superseded session shows a banner, and "Take it back" restores it', async () => {
    // The phone's sign-in took the license over: this page's session is superseded.
    await page.getByRole('link', { name: 'Files', exact: true }).click()
    await page.getByText(/took over this one/).waitFor()
    await shot(page, 'session-superseded')
    await page.getByRole('button', { name: 'Take it back' }).click()
    await page.getByText(/took over this one/).waitFor({ state: 'detached' })
    await row(page, 'car.glb').waitFor()
  })

  it('signs out (the session is deleted, the cookies cleared) with no console errors along the way', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { name: 'Sign in to Tessera' }).waitFor()
    assert.deepEqual(await page.context().cookies(server.baseUrl), [])
    await page.reload()
    await page.getByRole('heading', { name: 'Sign in to Tessera' }).waitFor()
    assert.deepEqual(errors, [])
  })
})

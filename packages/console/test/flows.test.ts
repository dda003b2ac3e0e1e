// Second-level console flows (issue 30) in Chromium against a real `tessera serve`: a signed-out
// visit without a failing request, signing in with an e-mail, an admin creating an account (the
// form kept on failure), messages in people's words (never a code), revision numbers 1, 2, 3
// through shares and revokes, sharing with an unknown e-mail, "Shared with me" live with owner and
// role, and an idle tab learning at once that its session was taken over.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { seriousViolations } from './support/axe.ts'
import { collectErrors, launch } from './support/browser.ts'
import { stlCube } from './support/models.ts'
import { startTessera, type Tessera } from './support/server.ts'

const SHOTS = path.resolve(import.meta.dirname, '../../../docs/console')
const DESKTOP = { width: 1280, height: 800 }
const ADMIN_EMAIL = 'admin@localhost.localdomain'
const BOB = { username: 'bob', email: 'bob@example.com', password: 'bob-password-1' }

let server: Tessera
let browser: Browser
let admin: { context: BrowserContext; page: Page; errors: string[] }
let bob: { context: BrowserContext; page: Page; errors: string[] }

async function open(expected: number[]) {
  const context = await browser.newContext({ viewport: DESKTOP })
  const page = await context.newPage()
  return { context, page, errors: collectErrors(page, expected) }
}

async function signIn(p: Page, username: string, password: string): Promise<void> {
  await p.getByLabel('Username or e-mail').fill(username)
  await p.getByLabel('Password', { exact: true }).fill(password)
  await p.getByRole('button', { name: 'Sign in' }).click()
}

const row = (p: Page, name: string) => p.locator(`.row[data-file="${name}"]`)
const revisionNumbers = (p: Page) =>
  p
    .locator('section[aria-label="Revisions"] li')
    .evaluateAll((items) => items.map((li) => Number(li.getAttribute('data-revision'))))

/** No message on the page starts with an error code ("WRONG_PASSWORD: …"). */
async function assertNoRawCodes(p: Page): Promise<void> {
  const texts = await p.locator('.error, .ok, [role="alert"], [role="status"]').allInnerTexts()
  for (const text of texts) assert.doesNotMatch(text, /\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/, text)
}

describe('console flows in Chromium', { timeout: 240_000 }, () => {
  before(async () => {
    server = await startTessera({ TESSERA_LICENSES: '5' })
    await server.cli(
      ['accounts', 'create', '--email', BOB.email, '--username', BOB.username],
      `${BOB.password}\n`,
    )
    browser = await launch()
  })

  after(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('a signed-out visit makes no failing request and logs no error', async () => {
    const visit = await open([])
    const failed: string[] = []
    visit.page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.request().method()} ${r.url()}`)
    })
    await visit.page.goto(server.baseUrl)
    await visit.page.getByRole('heading', { name: 'Sign in to Tessera' }).waitFor()
    await visit.page.reload()
    await visit.page.getByRole('heading', { name: 'Sign in to Tessera' }).waitFor()
    await visit.page.waitForTimeout(500)
    assert.deepEqual(failed, [])
    assert.deepEqual(visit.errors, [])
    await visit.context.close()
  })

  it('signs in with the e-mail, in any case', async () => {
    // 400 (taken username), 403 (wrong current password), 404 (unknown e-mail) are provoked below.
    admin = await open([400, 403, 404, 409])
    await admin.page.goto(server.baseUrl)
    await signIn(admin.page, ADMIN_EMAIL.toUpperCase(), server.adminPassword)
    await admin.page.getByRole('heading', { name: 'My files' }).waitFor()
    assert.equal(await admin.page.locator('.who').innerText(), 'admin')
  })

  it('an admin creates an account; a refused one keeps what was typed', async () => {
    const p = admin.page
    await p.getByRole('link', { name: 'Account' }).click()
    const form = p.locator('form[aria-label="New account"]')
    await form.waitFor()
    await form.getByLabel('Username').fill('bob')
    await form.getByLabel('E-mail').fill('carol@example.com')
    await form.getByLabel('Password').fill('carol-password-1')
    await form.getByRole('button', { name: 'Create account' }).click()
    await p.getByText('username is taken').waitFor()
    assert.equal(await form.getByLabel('Username').inputValue(), 'bob')
    assert.equal(await form.getByLabel('E-mail').inputValue(), 'carol@example.com')
    assert.equal(await form.getByLabel('Password').inputValue(), 'carol-password-1')
    await assertNoRawCodes(p)

    await form.getByLabel('Username').fill('carol')
    await form.getByRole('button', { name: 'Create account' }).click()
    await p.getByRole('row', { name: /carol@example\.com/ }).waitFor()
    // Cleared once the lists are read again (the licenses come after the accounts).
    await p.waitForFunction(
      () =>
        (document.querySelector('form[aria-label="New account"] input') as HTMLInputElement)?.value === '',
      undefined,
      { timeout: 15_000 },
    )
    assert.deepEqual(await seriousViolations(p), [])
  })

  it('shows people’s words, never a code: a wrong current password', async () => {
    const p = admin.page
    const form = p.locator('form[aria-label="Change password"]')
    await form.getByLabel('Current password').fill('not-the-password')
    await form.getByLabel('New password', { exact: true }).fill('another-password-1')
    await form.getByLabel('New password again').fill('another-password-1')
    await form.getByRole('button', { name: /Change password/ }).click()
    await p.getByText('The current password is wrong.').waitFor()
    assert.equal(await p.getByText('WRONG_PASSWORD').count(), 0)
    await assertNoRawCodes(p)
  })

  it('sharing with an unknown e-mail says so, in the server’s words', async () => {
    const p = admin.page
    await p.getByRole('link', { name: 'Files' }).click()
    await p.getByTestId('upload-input').setInputFiles({
      name: 'cube.stl',
      mimeType: 'model/stl',
      buffer: stlCube(2),
    })
    await row(p, 'cube.stl').click()
    await p.getByLabel('E-mail to share with').fill('nobody@example.com')
    await p.getByRole('button', { name: 'Share', exact: true }).click()
    await p.getByText('No account has the e-mail nobody@example.com.').waitFor()
    assert.equal(await p.getByText(/Not found: it was removed/).count(), 0)
    await assertNoRawCodes(p)
  })

  it('"Shared with me" follows shares and revokes live, with owner and role', async () => {
    bob = await open([])
    await bob.page.goto(server.baseUrl)
    await signIn(bob.page, BOB.email, BOB.password)
    await bob.page.getByRole('heading', { name: 'My files' }).waitFor()
    await bob.page.getByRole('link', { name: 'Shared with me' }).click()
    await bob.page.getByText('No files here yet.').waitFor()

    const p = admin.page
    await p.getByLabel('E-mail to share with').fill(BOB.email)
    await p.getByLabel('Role').selectOption('editor')
    await p.getByRole('button', { name: 'Share', exact: true }).click()
    await p.getByText(`Shared with ${BOB.email}.`).waitFor()
    // The outcome is written at the end of the scrolling details panel: it is brought into view.
    await p.waitForFunction(
      () => {
        const panel = document.querySelector('.details')?.getBoundingClientRect()
        const said = document.querySelector('.details [role="status"]')?.getBoundingClientRect()
        return panel && said && said.top >= panel.top && said.bottom <= panel.bottom + 1
      },
      undefined,
      { timeout: 15_000 },
    )
    // No reload on Bob's side: the event stream brings it.
    const shared = row(bob.page, 'cube.stl')
    await shared.waitFor({ timeout: 10_000 })
    assert.equal((await shared.getByTestId('shared-by').innerText()).trim(), `${ADMIN_EMAIL} · editor ·`)
    await bob.page.screenshot({ path: path.join(SHOTS, 'shared-with-me.png') })
    assert.deepEqual(await seriousViolations(bob.page), [])
    // From Shared with me to My files: Bob's own (empty) folder, never the shared listing under
    // the other title (the screen is reused; a page error here once left it stale).
    await bob.page.getByRole('link', { name: 'Files', exact: true }).click()
    await bob.page.getByRole('heading', { name: 'My files' }).waitFor()
    await bob.page.getByText('No files here yet.').waitFor()
    assert.equal(await row(bob.page, 'cube.stl').count(), 0)
    await bob.page.getByRole('link', { name: 'Shared with me' }).click()
    await shared.waitFor({ timeout: 10_000 })

    await p.getByRole('button', { name: `Revoke ${BOB.email}` }).click()
    await p.getByText(`Revoked ${BOB.email}.`).waitFor()
    await shared.waitFor({ state: 'detached', timeout: 10_000 })
    await bob.page.getByText('No files here yet.').waitFor()
  })

  it('revision numbers count uploads: 1, then 2 and 3, whatever shares did', async () => {
    const p = admin.page
    // Shared and revoked above (`__v` moved twice): still the first revision.
    await p.getByTestId('revision-number').getByText(/^#1 /).waitFor()
    assert.deepEqual(await revisionNumbers(p), [1])
    // Another format under the file's name would only fail to convert: refused before any upload.
    await p.getByTestId('revision-input').setInputFiles({
      name: 'room.glb',
      mimeType: 'model/gltf-binary',
      buffer: Buffer.from('glTF'),
    })
    await p
      .getByTestId('revision-refused')
      .getByText(/must be a \.stl file too/)
      .waitFor()
    assert.deepEqual(await revisionNumbers(p), [1])
    for (const [n, size] of [
      [2, 3],
      [3, 4],
    ] as const) {
      await p.getByTestId('revision-input').setInputFiles({
        name: 'cube.stl',
        mimeType: 'model/stl',
        buffer: stlCube(size),
      })
      await p
        .getByTestId('revision-number')
        .getByText(new RegExp(`^#${n} `))
        .waitFor({ timeout: 30_000 })
    }
    await p.waitForFunction(
      () => document.querySelectorAll('section[aria-label="Revisions"] li').length === 3,
    )
    assert.deepEqual(await revisionNumbers(p), [3, 2, 1])
    assert.deepEqual(
      await p
        .locator('section[aria-label="Revisions"] li span')
        .first()
        .innerText()
        .then((t) => t.slice(0, 3)),
      '#3 ',
    )
    await p.getByRole('button', { name: 'Download revision 2' }).waitFor()
    await p.screenshot({ path: path.join(SHOTS, 'revision-numbers.png') })
    assert.deepEqual(await seriousViolations(p), [])
  })

  it('an idle tab shows "taken over" at once when another sign-in takes the session, without a request', async () => {
    const idle = bob.page
    // Any request of the idle tab after the takeover would be refused (401): none may have been
    // needed for the banner, which the ended event stream brings.
    const refused: string[] = []
    idle.on('response', (r) => {
      if (r.status() === 401) refused.push(`${r.request().method()} ${new URL(r.url()).pathname}`)
    })
    const other = await open([])
    await other.page.goto(server.baseUrl)
    const started = Date.now()
    await signIn(other.page, BOB.username, BOB.password)
    await other.page.getByRole('heading', { name: 'My files' }).waitFor()
    // The other session is told at once (the event stream); 10 s leaves room for a loaded CI machine.
    await idle.getByText(/took over this one/).waitFor({ timeout: 10_000 })
    const waited = Date.now() - started
    assert.ok(waited < 10_000, `banner after ${waited} ms`)
    assert.deepEqual(refused, [], refused.join(', '))
    assert.deepEqual(other.errors, [])
    await other.context.close()
  })

  it('logged no unexpected console error along the way', () => {
    assert.deepEqual(admin.errors, [])
    assert.deepEqual(bob.errors, [])
  })
})

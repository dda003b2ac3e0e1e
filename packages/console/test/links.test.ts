// Share by link in real Chromium against a real `tessera serve`: the owner creates a link in the
// file's details (keyboard only), lets its visitors join live sessions (and not again), and copies its address; a fresh browser without an account opens
// it and sees the model on the canvas, the "Viewing through a link" banner and no edit controls
// (axe clean, light and dark); a revoked link says so; a link with a password asks for it.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { apiSession } from './support/api-session.ts'
import { axe, blocking, describeFindings } from './support/axe.ts'
import { collectErrors, launch, paintedShare } from './support/browser.ts'
import { carGlb } from './support/models.ts'
import { startTessera, type Tessera } from './support/server.ts'

const SHOTS = path.resolve(import.meta.dirname, '../../../docs/console')
const DESKTOP = { width: 1280, height: 800 }

let server: Tessera
let browser: Browser
let fileId = ''
let linkAddress = ''
let ownerPage: Page

async function guestPage(
  theme: 'light' | 'dark',
  address: string,
  expected: number[] = [],
): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: DESKTOP, colorScheme: theme })
  const page = await context.newPage()
  const errors = collectErrors(page, expected)
  await page.goto(address)
  return { page, errors }
}

async function assertGuestViewer(page: Page, theme: string): Promise<void> {
  await page.getByTestId('link-banner').getByText('Viewing through a link.').waitFor()
  await page.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
  assert.ok((await paintedShare(page)) > 0.02, 'the model is drawn on the canvas')
  assert.equal(await page.getByRole('link', { name: '← Files' }).count(), 0)
  assert.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 0)
  await page.getByRole('tab', { name: /Annotations/ }).click()
  await page.getByText('View only — you are viewing through a link.').first().waitFor()
  await page.locator('.annotations li[data-annotation="Open note"]').waitFor()
  assert.equal(await page.locator('.annotations li[data-annotation="Secret"]').count(), 0)
  for (const name of ['Place annotation', 'Save current view', 'Set']) {
    assert.equal(await page.getByRole('button', { name, exact: true }).count(), 0, `no ${name} for a guest`)
  }
  assert.equal(await page.getByRole('button', { name: /^(Edit|Delete)/ }).count(), 0)
  // The open thread reads; a guest never replies.
  const note = page.locator('.annotations li[data-annotation="Open note"]')
  await note.getByRole('button', { name: 'Open note', exact: true }).click()
  await note.locator('.reply[data-reply="Paint is final."]').waitFor()
  assert.equal(await note.getByRole('textbox').count(), 0, 'no reply box for a guest')
  await note.getByText('Replying needs an account: a link is for reading.').waitFor()
  assert.equal(await note.locator('.badge.unread').count(), 0, 'nothing is unread for a guest')
  const findings = blocking(await axe(page))
  assert.deepEqual(findings, [], `${theme}: ${describeFindings(findings)}`)
  await page.screenshot({ path: path.join(SHOTS, `link-guest-${theme}.png`) })
}

describe('share by link in the console', { timeout: 300_000 }, () => {
  before(async () => {
    server = await startTessera()
    const owner = await apiSession(server.baseUrl, 'admin', server.adminPassword)
    const email = (await owner.call<{ account: { email: string } }>('GET', '/account/me')).account.email
    fileId = (await owner.uploadReady('car.glb', await carGlb()))._id
    const open = await owner.call<{ annotation: { _id: string } }>('POST', '/annotation/create/', {
      file: fileId,
      name: 'Open note',
      content: 'for everyone',
    })
    await owner.call('POST', '/annotation/reply/create/', {
      annotation: open.annotation._id,
      text: 'Paint is final.',
    })
    await owner.call('POST', '/annotation/create/', {
      file: fileId,
      name: 'Secret',
      readPermissions: [email],
    })
    browser = await launch()
  })
  after(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('the owner creates a link from the file details with the keyboard and sees its address once', async () => {
    const context = await browser.newContext({ viewport: DESKTOP })
    const page = await context.newPage()
    const errors = collectErrors(page, [401])
    await page.goto(server.baseUrl)
    await page.getByLabel('Username or e-mail').fill('admin')
    await page.getByLabel('Password', { exact: true }).fill(server.adminPassword)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.locator('.row[data-file="car.glb"]').click()
    const section = page.getByRole('region', { name: 'Share by link' })
    await section.getByRole('button', { name: 'Create link' }).focus()
    await page.keyboard.press('Enter')
    await section.getByText('Link created.').waitFor()
    linkAddress = await section.getByTestId('link-url').inputValue()
    assert.match(linkAddress, /\/#\/link\/[A-Za-z0-9_-]{43}$/)
    await section.getByRole('button', { name: 'Copy link' }).waitFor()
    // Live sessions for the link's visitors: off at first, turned on by keyboard (Space).
    const live = section.getByRole('checkbox', { name: 'Let link visitors join live sessions' })
    assert.equal(await live.isChecked(), false)
    await live.focus()
    await page.keyboard.press('Space')
    await section.getByText('Link visitors can now join live sessions of this file.').waitFor()
    assert.equal(await live.isChecked(), true)
    assert.equal(await section.getByTestId('link-url').inputValue(), linkAddress, 'the address stays shown')
    await section.scrollIntoViewIfNeeded()
    await page.screenshot({ path: path.join(SHOTS, 'link-share-owner.png') })
    const findings = blocking(await axe(page))
    assert.deepEqual(findings, [], describeFindings(findings))
    const record = await page.evaluate(
      async (id) =>
        (await (await fetch(`/file/${id}`)).json()) as { file: { allowLivePublicMeetings: boolean } },
      fileId,
    )
    assert.equal(record.file.allowLivePublicMeetings, true)
    // Off again: the guests below see the link's viewer without a live session.
    await live.focus()
    await page.keyboard.press('Space')
    await section.getByText('Link visitors can no longer join live sessions').waitFor()
    assert.equal(await live.isChecked(), false)
    // A refused change says why, and the box keeps the record's state.
    await page.route('**/live-meetings', (route) =>
      route.fulfill({
        status: 403,
        contentType: 'application/problem+json',
        body: JSON.stringify({ status: 403, code: 'FORBIDDEN', title: 'Forbidden', detail: 'Refused here.' }),
      }),
    )
    await live.focus()
    await page.keyboard.press('Space')
    await section.getByRole('alert').filter({ hasText: 'Refused here.' }).waitFor()
    assert.equal(await live.isChecked(), false)
    await page.unroute('**/live-meetings')
    errors.splice(0, errors.length, ...errors.filter((text) => !/status of 403\b/.test(text)))
    assert.deepEqual(errors, [])
    ownerPage = page // kept open for the revocation below
  })

  it('a browser without an account opens it: the model, the banner, no edit controls (light, dark)', async () => {
    for (const theme of ['light', 'dark'] as const) {
      const { page, errors } = await guestPage(theme, linkAddress)
      await assertGuestViewer(page, theme)
      assert.deepEqual(errors, [])
      await page.context().close()
    }
  })

  it('a revoked link says so; a link with a password asks for it', async () => {
    const owner = ownerPage
    const section = owner.getByRole('region', { name: 'Share by link' })
    owner.once('dialog', (dialog) => void dialog.accept())
    await section.getByRole('button', { name: 'Revoke link' }).click()
    await section.getByText('Link revoked.').waitFor()
    const revoked = await guestPage('light', linkAddress, [404])
    await revoked.page
      .getByTestId('link-closed')
      .getByText(/no longer works/)
      .waitFor()
    const findings = blocking(await axe(revoked.page))
    assert.deepEqual(findings, [], describeFindings(findings))
    await revoked.page.screenshot({ path: path.join(SHOTS, 'link-revoked.png') })
    await owner.context().close()

    const api = await apiSession(server.baseUrl, 'admin', server.adminPassword)
    const created = await api.call<{ token: string }>('POST', `/file/${fileId}/link`, {
      password: 'open sesame',
    })
    const guarded = await guestPage('dark', `${server.baseUrl}/#/link/${created.token}`, [401, 403])
    const field = guarded.page.getByLabel('Password', { exact: true })
    await field.waitFor()
    await field.fill('wrong one')
    await field.press('Enter')
    await guarded.page.getByText('That password is not right.').waitFor()
    await guarded.page.screenshot({ path: path.join(SHOTS, 'link-password.png') })
    await field.fill('open sesame')
    await field.press('Enter')
    await guarded.page.getByTestId('link-banner').waitFor()
    await guarded.page.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
  })
})

// The role-aware viewer end to end: one file, its owner, an editor and a viewer in real Chromium
// against a real `tessera serve`. Each sees only the actions the server accepts from them (and the
// reason for the rest); each annotation's and view's own lists are honoured; attribute values are
// stored as typed; deletions can be undone (and are sent once the notice goes); restoring a view stays on the Views tab. What the server
// stored is read back through the API by a fourth account (a viewer of the file), since a session of
// an account would supersede that account's page. Issue 32: a viewer stars the file and finds it under
// Favourites; the editor locks a view, which the owner and the viewer then see locked.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { type ApiSession, apiSession } from './support/api-session.ts'
import { seriousViolations } from './support/axe.ts'
import { collectErrors, launch } from './support/browser.ts'
import { carGlb } from './support/models.ts'
import { startTessera, type Tessera } from './support/server.ts'

const SHOTS = path.resolve(import.meta.dirname, '../../../docs/console')
const DESKTOP = { width: 1280, height: 800 }
const PASSWORD = 'role-test-password-1'
const ACCOUNTS = ['erin', 'vic', 'audit'] as const

type Annotation = {
  _id: string
  name: string
  content: string
  color: string
  targets: unknown[]
  tags: string[]
}
type Attributes = Record<string, Record<string, unknown>>

let server: Tessera
let browser: Browser
let audit: ApiSession
let fileId = ''
let ownerEmail = ''
const pages: Record<string, Page> = {}
const errors: Record<string, string[]> = {}

/** As the owner, before any page signs in as them: the file, its shares, annotations and views. */
async function prepare(): Promise<void> {
  const owner = await apiSession(server.baseUrl, 'admin', server.adminPassword)
  ownerEmail = (await owner.call<{ account: { email: string } }>('GET', '/account/me')).account.email
  fileId = (await owner.uploadReady('car.glb', await carGlb()))._id
  for (const [name, role] of [
    ['erin', 'editor'],
    ['vic', 'viewer'],
    ['audit', 'viewer'],
  ]) {
    await owner.call('POST', `/file/${fileId}/share`, { email: `${name}@example.com`, role })
  }
  const note = (name: string, extra: Record<string, unknown> = {}) =>
    owner.call('POST', '/annotation/create/', { file: fileId, name, content: `${name} text`, ...extra })
  await note('Owner only', { writePermissions: [ownerEmail] })
  await note('Title locked', { permissions: { writeTitle: [ownerEmail], delete: [ownerEmail] } })
  await note('Open note', {
    color: '#3366ff',
    tags: ['kept'],
    targets: [{ type: 'point', position: [0, 0, 0] }],
  })
  await note('Secret', { readPermissions: [ownerEmail] })
  const view = (name: string, extra: Record<string, unknown> = {}) =>
    owner.call('POST', '/file/configuration/', {
      file: fileId,
      name,
      cameraPosition: [6, 4, 6, 0, 0, 0],
      ...extra,
    })
  await view('Owner view', { writePermissions: [ownerEmail] })
  await view('Team view')
}

async function signIn(username: string, password: string): Promise<Page> {
  const context = await browser.newContext({ viewport: DESKTOP })
  const page = await context.newPage()
  // 401: the first page load finds no session to resume (the sign-in screen).
  errors[username] = collectErrors(page, [401])
  await page.goto(server.baseUrl)
  await page.getByLabel('Username').fill(username)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'My files' }).waitFor()
  return page
}

async function openViewer(page: Page): Promise<void> {
  await page.goto(`${server.baseUrl}/view/${fileId}`)
  await page.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
}

const tab = (page: Page, name: RegExp) => page.getByRole('tab', { name })
const item = (page: Page, name: string) => page.locator(`.annotations li[data-annotation="${name}"]`)

async function selectBody(page: Page): Promise<void> {
  await tab(page, /Parts/).click()
  await page.locator('.tree .node', { hasText: 'Body' }).click()
  await page.getByRole('heading', { name: 'Attributes of Body' }).waitFor()
}

async function storedAnnotations(): Promise<Annotation[]> {
  return (await audit.call<{ annotations: Annotation[] }>('GET', `/annotation/?file=${fileId}`)).annotations
}

async function storedAttributes(): Promise<Record<string, unknown>> {
  const all = (
    await audit.call<{ nodeIdToAttributes: Attributes }>('GET', `/scene/attributes?file=${fileId}`)
  ).nodeIdToAttributes
  return Object.values(all).find((attributes) => 'ratio' in attributes) ?? {}
}

describe('the viewer by role', { timeout: 240_000 }, () => {
  before(async () => {
    server = await startTessera({ TESSERA_LICENSES: '10' })
    for (const name of ACCOUNTS) {
      await server.cli(
        ['accounts', 'create', '--email', `${name}@example.com`, '--username', name],
        `${PASSWORD}\n`,
      )
    }
    await prepare()
    audit = await apiSession(server.baseUrl, 'audit', PASSWORD)
    browser = await launch()
  })

  after(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('viewer: no Place annotation, Save view, Set, Edit or Delete, and the reason is shown', async () => {
    const page = await signIn('vic', PASSWORD)
    pages.vic = page
    await openViewer(page)
    const reason = /View only — shared with you as viewer/
    await tab(page, /Annotations/).click()
    await page.getByText(reason).waitFor()
    assert.equal(await page.getByRole('button', { name: 'Place annotation' }).count(), 0)
    for (const name of ['Owner only', 'Title locked', 'Open note']) await item(page, name).waitFor()
    assert.equal(await item(page, 'Secret').count(), 0, 'its readPermissions leave the viewer out')
    assert.equal(
      await page
        .locator('.annotations')
        .getByRole('button', { name: /^(Edit|Delete)/ })
        .count(),
      0,
    )
    await tab(page, /Views/).click()
    await page.getByText(reason).waitFor()
    assert.equal(await page.getByRole('button', { name: 'Save current view' }).count(), 0)
    assert.equal(await page.getByRole('button', { name: /^Delete view/ }).count(), 0)
    await selectBody(page)
    await page.locator('.attributes').getByText(reason).waitFor()
    assert.equal(await page.getByRole('button', { name: 'Set', exact: true }).count(), 0)
    assert.equal(await page.getByLabel('Attribute value').count(), 0)
    await page.screenshot({ path: path.join(SHOTS, 'viewer-role-viewer.png') })
    assert.deepEqual(errors.vic, [])
  })

  it("editor: writes, but each annotation's and view's lists decide Edit and Delete", async () => {
    const page = await signIn('erin', PASSWORD)
    pages.erin = page
    await openViewer(page)
    await tab(page, /Annotations/).click()
    await page.getByRole('button', { name: 'Place annotation' }).waitFor()
    // Not in its writePermissions: neither button, and why.
    await item(page, 'Owner only').getByText('Read only: you are not in its write list.').waitFor()
    assert.equal(
      await item(page, 'Owner only')
        .getByRole('button', { name: /^(Edit|Delete)/ })
        .count(),
      0,
    )
    // writeTitle and delete name only the owner: Edit (the text only), no Delete.
    const locked = item(page, 'Title locked')
    assert.equal(await locked.getByRole('button', { name: /^Delete/ }).count(), 0)
    await locked.getByRole('button', { name: 'Edit Title locked' }).click()
    assert.equal(await locked.getByLabel('Title').getAttribute('readonly'), '')
    await locked.getByLabel('Text').fill('Changed by the editor')
    await locked.getByRole('button', { name: 'Save' }).click()
    await locked.getByRole('button', { name: 'Edit Title locked' }).waitFor()
    const stored = (await storedAnnotations()).find((a) => a.name === 'Title locked')
    assert.equal(stored?.content, 'Changed by the editor')
    // No lists: both.
    await item(page, 'Open note').getByRole('button', { name: 'Edit Open note' }).waitFor()
    await item(page, 'Open note').getByRole('button', { name: 'Delete Open note' }).waitFor()
    assert.equal(await item(page, 'Secret').count(), 0)
    await page.screenshot({ path: path.join(SHOTS, 'viewer-role-editor.png') })
    await tab(page, /Views/).click()
    await page.getByRole('button', { name: 'Save current view' }).waitFor()
    await page.getByRole('button', { name: 'Delete view Team view' }).waitFor()
    assert.equal(await page.getByRole('button', { name: 'Delete view Owner view' }).count(), 0)
    await selectBody(page)
    await page.getByRole('button', { name: 'Set', exact: true }).waitFor()
    assert.deepEqual(errors.erin, [])
  })

  it('editor: deleting an annotation offers Undo (keyboard), which keeps it exactly as it was', async () => {
    const page = pages.erin as Page
    await tab(page, /Annotations/).click()
    const before = (await storedAnnotations()).find((a) => a.name === 'Open note')
    await item(page, 'Open note').getByRole('button', { name: 'Delete Open note' }).click()
    await page.getByText('Annotation "Open note" deleted').waitFor()
    assert.equal(await item(page, 'Open note').count(), 0)
    // The deletion waits for the notice to go: nothing is sent yet.
    assert.equal(
      (await storedAnnotations()).some((a) => a.name === 'Open note'),
      true,
    )
    // The Undo button has the focus: Enter undoes.
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Undo')
    await page.keyboard.press('Enter')
    await item(page, 'Open note').waitFor()
    await page.waitForTimeout(300)
    const after = (await storedAnnotations()).find((a) => a.name === 'Open note')
    // The same annotation: same ID, author and date (a re-created copy would have the undoer's).
    assert.deepEqual(after, before)
    assert.equal(await page.locator('.undo-notice').count(), 0)
  })

  it('owner: every action on every annotation, and can share', async () => {
    const page = await signIn('admin', server.adminPassword)
    pages.admin = page
    await openViewer(page)
    await tab(page, /Annotations/).click()
    await page.getByRole('button', { name: 'Place annotation' }).waitFor()
    for (const name of ['Owner only', 'Title locked', 'Open note', 'Secret']) {
      await item(page, name)
        .getByRole('button', { name: `Edit ${name}` })
        .waitFor()
      await item(page, name)
        .getByRole('button', { name: `Delete ${name}` })
        .waitFor()
    }
    await tab(page, /Views/).click()
    await page.getByRole('button', { name: 'Delete view Owner view' }).waitFor()
    await page.goto(`${server.baseUrl}/files`)
    await page.locator('.row[data-file="car.glb"]').click()
    await page.getByLabel('E-mail to share with').waitFor()
    assert.deepEqual(errors.admin, [])
  })

  it('discussion: the viewer replies by keyboard, the editor sees it live as unread, the owner moderates', async () => {
    const vic = pages.vic as Page
    const erin = pages.erin as Page
    const owner = pages.admin as Page
    await tab(erin, /Annotations/).click()
    await item(erin, 'Open note').waitFor()
    await tab(vic, /Annotations/).click()
    await item(vic, 'Open note').getByRole('button', { name: 'Open note', exact: true }).click()
    // Viewers comment: the reply box is theirs (the note's writeDiscussion is empty).
    const box = vic.getByRole('textbox', { name: 'Reply to Open note' })
    await box.focus()
    await vic.keyboard.type('Is the paint final?')
    await vic.keyboard.press('Tab')
    await vic.keyboard.press('Enter')
    await item(vic, 'Open note').locator('.reply[data-reply="Is the paint final?"]').waitFor()
    // The editor's page hears the event: an unread badge, without a reload.
    const badge = item(erin, 'Open note').locator('.badge.unread')
    await badge.waitFor({ timeout: 10_000 })
    assert.match((await badge.textContent()) ?? '', /^1 new/)
    await erin.locator('.annotations').screenshot({ path: path.join(SHOTS, 'viewer-discussion-unread.png') })
    await item(erin, 'Open note').getByRole('button', { name: 'Open note', exact: true }).click()
    const reply = item(erin, 'Open note').locator('.reply[data-reply="Is the paint final?"]')
    await reply.waitFor()
    await badge.waitFor({ state: 'detached' })
    // Someone else's reply: neither Edit nor Delete for an editor.
    assert.equal(await reply.getByRole('button').count(), 0)
    await erin.screenshot({ path: path.join(SHOTS, 'viewer-discussion.png') })
    assert.deepEqual(await seriousViolations(erin), [])
    await erin.emulateMedia({ colorScheme: 'dark' })
    await erin.locator('html[data-theme="dark"]').waitFor({ state: 'attached' })
    assert.deepEqual(await seriousViolations(erin), [])
    // The panel only: after the emulated theme switch this page's 3D view came out blank in the shot.
    await erin.locator('.annotations').screenshot({ path: path.join(SHOTS, 'dark-viewer-discussion.png') })
    await erin.emulateMedia({ colorScheme: 'light' })
    // The author edits their reply, by keyboard.
    await vic.getByRole('button', { name: 'Edit your reply' }).focus()
    await vic.keyboard.press('Enter')
    const edit = vic.getByRole('textbox', { name: 'Edit your reply' })
    await edit.fill('Is the paint final? (red)')
    await edit.press('Tab')
    await vic.keyboard.press('Enter')
    await item(vic, 'Open note')
      .locator('.reply[data-reply="Is the paint final? (red)"]')
      .getByText('(edited)')
      .waitFor()
    await item(erin, 'Open note')
      .locator('.reply[data-reply="Is the paint final? (red)"]')
      .waitFor({ timeout: 10_000 })
    // The file's owner may delete any reply.
    await openViewer(owner)
    await tab(owner, /Annotations/).click()
    await item(owner, 'Open note').getByRole('button', { name: 'Open note', exact: true }).click()
    await owner.getByRole('button', { name: 'Delete reply by vic@example.com' }).click()
    await item(owner, 'Open note').getByText('No replies yet.').waitFor()
    await item(vic, 'Open note').getByText('No replies yet.').waitFor({ timeout: 10_000 })
    for (const who of ['vic', 'erin', 'admin']) assert.deepEqual(errors[who], [], who)
  })

  it('attribute values are stored as typed, and shown after a reload as stored', async () => {
    const page = pages.admin as Page
    await openViewer(page)
    await selectBody(page)
    const set = async (name: string, value: string, type = 'text') => {
      await page.getByLabel('Attribute name').fill(name)
      await page.getByLabel('Attribute type').selectOption(type)
      await page.getByLabel('Attribute value').fill(value)
      await page.getByRole('button', { name: 'Set', exact: true }).click()
    }
    await set('ratio', '1.10')
    await page.getByLabel('Value of ratio').waitFor()
    await set('serial', '12345678901234567890')
    await page.getByLabel('Value of serial').waitFor()
    await set('flag', 'true')
    await page.getByLabel('Value of flag').waitFor()
    // A number that would not be stored as written: refused inline, nothing sent.
    await set('count', '12345678901234567890', 'number')
    await page.getByText(/keeps at most 15 digits exactly/).waitFor()
    assert.equal(await page.getByLabel('Attribute value').getAttribute('aria-invalid'), 'true')
    await set('broken', '{"a":', 'json')
    await page.getByText(/Not valid JSON/).waitFor()
    await set('gone', 'null', 'json')
    await page.getByText(/null would remove the attribute/).waitFor()
    await set('count', '42', 'number')
    await page.getByLabel('Value of count').waitFor()
    await set('dims', '{"w": 1.5, "tags": ["a"]}', 'json')
    await page.getByLabel('Value of dims').waitFor()
    const stored = await storedAttributes()
    assert.deepEqual(stored, {
      count: 42,
      dims: { w: 1.5, tags: ['a'] },
      flag: 'true',
      ratio: '1.10',
      serial: '12345678901234567890',
    })
    await page.reload()
    await page.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
    await selectBody(page)
    for (const [name, value] of Object.entries(stored)) {
      const shown = await page.getByLabel(`Value of ${name}`).inputValue()
      assert.equal(shown, typeof value === 'string' ? value : JSON.stringify(value), name)
    }
    assert.equal(await page.getByLabel('Type of count').inputValue(), 'number')
    assert.equal(await page.getByLabel('Type of ratio').inputValue(), 'text')
    // Changing the type of a stored value re-stores it: text "1.10" as a number is 1.1.
    await page.getByLabel('Type of ratio').selectOption('number')
    await page.getByLabel('Type of ratio').waitFor()
    await page.waitForFunction(
      () => (document.querySelector('[aria-label="Value of ratio"]') as HTMLInputElement)?.value === '1.1',
    )
    assert.equal((await storedAttributes()).ratio, 1.1)
    await page.screenshot({ path: path.join(SHOTS, 'viewer-typed-attributes.png') })
  })

  it('on a phone, attribute keys wrap between words, never inside one', async () => {
    const page = pages.admin as Page
    await page.setViewportSize({ width: 390, height: 844 })
    try {
      await openViewer(page)
      await selectBody(page)
      for (const name of ['manufacturer', 'fire resistance rating']) {
        await page.getByLabel('Attribute name').fill(name)
        await page.getByLabel('Attribute value').fill('x')
        await page.getByRole('button', { name: 'Set', exact: true }).click()
        await page.getByLabel(`Value of ${name}`).waitFor()
      }
      // Each word of each key on one line: the distinct line tops of a word's text are one.
      const broken = await page.evaluate(() => {
        const found: string[] = []
        for (const th of document.querySelectorAll<HTMLElement>('.attributes th[scope="row"]')) {
          const text = th.firstChild
          if (!(text instanceof Text)) continue
          let at = 0
          for (const word of (text.data ?? '').split(' ')) {
            const range = document.createRange()
            range.setStart(text, at)
            range.setEnd(text, at + word.length)
            const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)))
            if (tops.size > 1) found.push(word)
            at += word.length + 1
          }
        }
        return found
      })
      assert.deepEqual(broken, [])
    } finally {
      await page.setViewportSize(DESKTOP)
    }
  })

  it('restoring a view stays on the Views tab; deleting a view can be undone', async () => {
    const page = pages.admin as Page
    await tab(page, /Views/).click()
    await page.getByRole('button', { name: 'Restore Team view' }).click()
    await page.waitForTimeout(300)
    assert.equal(await tab(page, /Views/).getAttribute('aria-selected'), 'true')
    await page.getByRole('button', { name: 'Restore Owner view' }).waitFor()
    await page.getByRole('button', { name: 'Delete view Team view' }).click()
    await page.getByText('View "Team view" deleted').waitFor()
    assert.equal(await page.getByRole('button', { name: 'Restore Team view' }).count(), 0)
    await page.getByRole('button', { name: 'Undo' }).click()
    await page.getByRole('button', { name: 'Restore Team view' }).waitFor()
    type View = { _id: string; name: string; cameraPosition: number[] }
    const stored = async () =>
      (await audit.call<{ configurations: View[] }>('GET', `/file/configuration/?file=${fileId}`))
        .configurations
    const kept = (await stored()).find((v) => v.name === 'Team view')
    assert.deepEqual(kept?.cameraPosition, [6, 4, 6, 0, 0, 0])
    // Without Undo the deletion is sent when the notice goes (here: dismissed with ✕).
    await page.getByRole('button', { name: 'Delete view Team view' }).click()
    await page.getByRole('button', { name: 'Dismiss' }).click()
    const deadline = Date.now() + 5000
    while ((await stored()).some((v) => v._id === kept?._id)) {
      assert.ok(Date.now() < deadline, 'the dismissed deletion was not sent')
      await page.waitForTimeout(100)
    }
    // It does not come back while the list reloads without it.
    assert.equal(await page.getByRole('button', { name: 'Restore Team view' }).count(), 0)
    await page.waitForTimeout(500)
    assert.equal(await page.getByRole('button', { name: 'Restore Team view' }).count(), 0)
    assert.deepEqual(errors.admin, [])
  })

  it('favourites: the viewer stars the shared file by keyboard and finds it under Favourites', async () => {
    const page = pages.vic as Page
    await page.goto(`${server.baseUrl}/shared`)
    const star = page.locator('.row[data-file="car.glb"]').getByRole('button', { name: 'Favourite car.glb' })
    assert.equal(await star.getAttribute('aria-pressed'), 'false')
    // One Tab stop per row: → from the file's name reaches its star.
    await page.getByRole('button', { name: 'car.glb', exact: true }).focus()
    await page.keyboard.press('ArrowRight')
    assert.equal(await star.evaluate((el) => el === document.activeElement), true, '→ reaches the star')
    await page.keyboard.press('Enter')
    await page.locator('.row[data-file="car.glb"] .star[aria-pressed="true"]').waitFor()
    await page.getByRole('link', { name: 'Favourites' }).click()
    await page.getByRole('heading', { name: 'Favourites' }).waitFor()
    await page.locator('.row[data-file="car.glb"] .name').click()
    await page.getByTestId('starred-by').filter({ hasText: 'vic@example.com' }).waitFor()
    const stored = await audit.call<{ file: { favoritedBy: string[] } }>('GET', `/file/${fileId}`)
    assert.deepEqual(stored.file.favoritedBy, ['vic@example.com'])
    assert.deepEqual(await seriousViolations(page), [])
    await page.screenshot({ path: path.join(SHOTS, 'favourites.png') })
    await page.emulateMedia({ colorScheme: 'dark' })
    assert.deepEqual(await seriousViolations(page), [])
    await page.screenshot({ path: path.join(SHOTS, 'dark-favourites.png') })
    await page.emulateMedia({ colorScheme: 'light' })
    // Unstarred from the details panel (Space): the file leaves Favourites.
    await page.locator('.details').getByRole('button', { name: 'Favourite car.glb' }).press('Space')
    await page.getByText('No favourites yet').waitFor()
    assert.deepEqual(errors.vic, [])
  })

  it('locked views: the editor locks one; the owner sees who holds it, cannot delete it, unlocks it', async () => {
    const erin = pages.erin as Page
    await openViewer(erin)
    await tab(erin, /Views/).click()
    await erin.getByLabel('View name').fill('Erin view')
    await erin.getByRole('button', { name: 'Save current view' }).click()
    const mine = erin.locator('li[data-view="Erin view"]')
    await mine.getByRole('button', { name: 'Lock view Erin view' }).press('Enter')
    await mine.getByText('Locked by you').waitFor()
    await mine.getByRole('button', { name: 'Unlock view Erin view' }).waitFor()
    type View = { name: string; lockedBy: string | null }
    const stored = async () =>
      (
        await audit.call<{ configurations: View[] }>('GET', `/file/configuration/?file=${fileId}`)
      ).configurations.find((v) => v.name === 'Erin view')
    assert.equal((await stored())?.lockedBy, 'erin@example.com')

    const vic = pages.vic as Page
    await openViewer(vic)
    await tab(vic, /Views/).click()
    await vic
      .locator('li[data-view="Erin view"]')
      .getByTestId('lock-state')
      .filter({ hasText: 'Locked by erin@example.com' })
      .waitFor()
    assert.equal(await vic.getByRole('button', { name: /^(Lock|Unlock) view/ }).count(), 0)

    const admin = pages.admin as Page
    await openViewer(admin)
    await tab(admin, /Views/).click()
    const held = admin.locator('li[data-view="Erin view"]')
    await held.getByTestId('lock-state').filter({ hasText: 'Locked by erin@example.com' }).waitFor()
    assert.equal(await held.getByRole('button', { name: 'Delete view Erin view' }).isDisabled(), true)
    await held.getByText(/unlock it to change or delete it/).waitFor()
    assert.deepEqual(await seriousViolations(admin), [])
    await admin.locator('.views').screenshot({ path: path.join(SHOTS, 'views-locked.png') })
    await admin.emulateMedia({ colorScheme: 'dark' })
    assert.deepEqual(await seriousViolations(admin), [])
    await admin.locator('.views').screenshot({ path: path.join(SHOTS, 'dark-views-locked.png') })
    await admin.emulateMedia({ colorScheme: 'light' })
    await held.getByRole('button', { name: 'Unlock view Erin view' }).press('Enter')
    await held.getByRole('button', { name: 'Lock view Erin view' }).waitFor()
    assert.equal((await stored())?.lockedBy, null)
    assert.deepEqual(errors.admin, [])
    assert.deepEqual(errors.erin, [])
  })
})

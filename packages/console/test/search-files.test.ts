// The Search screen (Search models) in Chromium against a real server: the owner of two models (one
// with parts rated REI60, one without) who was given a file as editor and one as viewer by two other
// accounts searches extras.fireRating = REI60 and sees exactly those three files with their folder,
// role and number of parts; a stranger's REI60 file never shows. A result's link opens the viewer
// with Find by property filled in and run ("3 parts found"); the whole path by keyboard; Back and
// reload ask again. Stand-ins for the server's answers: empty pages are followed, 1,000 files stop
// the search and say so, Stop ends it, a newer search drops an older one's late answer, a failure
// is shown. axe in light and dark; screenshots of both.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page, Route } from 'playwright-core'
import { apiSession } from './support/api-session.ts'
import { axe, blocking, describeFindings } from './support/axe.ts'
import { collectErrors, launch, signInAsAdmin } from './support/browser.ts'
import { ratedPanelsGlb } from './support/property-models.ts'
import { startTessera, type Tessera } from './support/server.ts'

const SHOTS = path.resolve(import.meta.dirname, '../../../docs/console')
const DESKTOP = { width: 1280, height: 800 }
const PASSWORD = 'search-files-password-1'
const REI60 = { group: 'extras', name: 'fireRating', op: 'eq', value: 'REI60' }

let server: Tessera
let browser: Browser
let page: Page
let errors: string[]
const ids: Record<string, string> = {}

/** Each account's files (name, folder, ratings) and whom it shares them with, as what. */
async function prepare(): Promise<void> {
  for (const name of ['erin', 'vic', 'sam'])
    await server.cli(
      ['accounts', 'create', '--email', `${name}@example.com`, '--username', name],
      `${PASSWORD}\n`,
    )
  const admin = await apiSession(server.baseUrl, 'admin', server.adminPassword)
  const me = (await admin.call<{ account: { email: string } }>('GET', '/account/me')).account.email
  const sessions = {
    admin,
    erin: await apiSession(server.baseUrl, 'erin', PASSWORD),
    vic: await apiSession(server.baseUrl, 'vic', PASSWORD),
    sam: await apiSession(server.baseUrl, 'sam', PASSWORD),
  }
  const files = [
    { by: 'admin', name: 'tower.glb', parent: '/projects', ratings: ['REI60', 'REI60', 'REI30', 'REI60'] },
    { by: 'admin', name: 'shed.glb', parent: '/', ratings: ['REI30', 'REI90'] },
    { by: 'erin', name: 'annex.glb', parent: '/designs', ratings: ['REI30', 'REI60'], role: 'editor' },
    { by: 'vic', name: 'hall.glb', parent: '/', ratings: ['REI60', 'REI60'], role: 'viewer' },
    { by: 'sam', name: 'secret.glb', parent: '/', ratings: ['REI60', 'REI60', 'REI60'] },
  ] as const
  await Promise.all(
    files.map(async (f) => {
      const api = sessions[f.by]
      ids[f.name] = (await api.uploadReady(f.name, await ratedPanelsGlb(f.ratings), f.parent))._id
      if ('role' in f) await api.call('POST', `/file/${ids[f.name]}/share`, { email: me, role: f.role })
    }),
  )
}

async function until(test: () => Promise<boolean>, what: string, timeout = 15_000): Promise<void> {
  const deadline = Date.now() + timeout
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await page.waitForTimeout(100)
  }
}

const form = () => page.locator('.search-files .property-query')
const status = () => page.locator('.search-status')

async function search(query: { group: string; name: string; op: string; value: string }): Promise<void> {
  await form().getByLabel('Group', { exact: true }).fill(query.group)
  await form().getByLabel('Property', { exact: true }).fill(query.name)
  await form().getByLabel('Comparison', { exact: true }).selectOption(query.op)
  await form().getByLabel('Value', { exact: true }).fill(query.value)
  await form().getByRole('button', { name: 'Search', exact: true }).click()
}

/** Waits for the search to end in `phase` (with `text`, when the last search ended so too); answers the status line. */
async function ended(phase: string, text?: string): Promise<string> {
  const line = page.locator(`.search-status[data-phase="${phase}"]`)
  await (text ? line.filter({ hasText: text }) : line).waitFor({ state: 'attached' })
  return (await status().textContent()) ?? ''
}

/** The table's rows: name, folder, role, matching parts. */
function rows(): Promise<string[][]> {
  return page
    .locator('.search-results tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')))
}

async function themed(theme: 'light' | 'dark'): Promise<void> {
  await page.emulateMedia({ colorScheme: theme })
  await until(
    async () => (await page.evaluate(() => document.documentElement.dataset.theme)) === theme,
    theme,
  )
  await page.waitForTimeout(300)
}

/** Presses Tab until the focus is on `selector` (at most 40 times). */
async function tabTo(selector: string): Promise<void> {
  for (let i = 0; i < 40; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) === true, selector)) return
    await page.keyboard.press('Tab')
  }
  throw new Error(`Tab never reached ${selector}`)
}

/** The viewer opened from a result: ready, Find by property open with the query, "N parts found". */
async function viewerFound(file: string, text: string): Promise<void> {
  await until(async () => new URL(page.url()).pathname === `/view/${ids[file]}`, `the viewer of ${file}`)
  await page.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
  await page.locator('.property-count[data-count]:not([data-count=""])').waitFor()
  assert.equal(await page.locator('.property-count').textContent(), text)
  assert.equal(await page.locator('.property-find').getAttribute('open'), '')
  const viewerForm = page.locator('.property-find .property-query')
  assert.equal(await viewerForm.getByLabel('Group', { exact: true }).inputValue(), 'extras')
  assert.equal(await viewerForm.getByLabel('Property', { exact: true }).inputValue(), 'fireRating')
  assert.equal(await viewerForm.getByLabel('Value', { exact: true }).inputValue(), 'REI60')
}

const EXPECTED = [
  ['annex.glb', '/designs', 'Editor', '1'],
  ['hall.glb', '/', 'Viewer', '2'],
  ['tower.glb', '/projects', 'Owner', '3'],
]

describe('search models across files', { timeout: 600_000 }, () => {
  before(async () => {
    server = await startTessera({ TESSERA_LICENSES: '10' })
    // Prepared through the API before the page signs in (a session of admin supersedes another).
    await prepare()
    browser = await launch()
    page = await (await browser.newContext({ viewport: DESKTOP })).newPage()
    errors = collectErrors(page, [401])
    await signInAsAdmin(page, server)
  })

  after(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('lists exactly my matching files, own and shared, with folder, role and parts; no stranger’s', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Search' }).click()
    await page.getByRole('heading', { name: 'Search models' }).waitFor()
    await search(REI60)
    assert.equal(await ended('done'), '3 files found (6 parts)')
    assert.deepEqual(await rows(), EXPECTED)
    assert.equal(await page.getByRole('link', { name: 'secret.glb' }).count(), 0)
    assert.equal(new URL(page.url()).searchParams.get('find'), JSON.stringify(REI60))
    for (const theme of ['light', 'dark'] as const) {
      await themed(theme)
      await page.screenshot({ path: path.join(SHOTS, `search-files-${theme}.png`) })
      const findings = blocking(await axe(page))
      assert.deepEqual(findings, [], `${theme}: ${describeFindings(findings)}`)
    }
    await themed('light')
    // Nothing found says so; the table goes.
    await search({ ...REI60, value: 'EI120' })
    assert.equal(await ended('done', 'No files'), 'No files found')
    assert.equal(await page.locator('.search-results').count(), 0)
  })

  it('a result opens the viewer with the search run there; Back and reload ask again', async () => {
    await page.goBack()
    assert.equal(await ended('done', '3 files'), '3 files found (6 parts)')
    assert.equal(await form().getByLabel('Value', { exact: true }).inputValue(), 'REI60')
    await page.getByRole('link', { name: 'tower.glb' }).click()
    await viewerFound('tower.glb', '3 parts found')
    await page.goBack()
    assert.equal(await ended('done', '3 files'), '3 files found (6 parts)')
    await page.reload()
    assert.equal(await ended('done'), '3 files found (6 parts)')
    assert.deepEqual(await rows(), EXPECTED)
    assert.deepEqual(errors, [])
  })

  it('by keyboard: Tab to the fields, Enter searches, Enter on a result opens it', async () => {
    await page.goto(`${server.baseUrl}/search`)
    await page.getByRole('heading', { name: 'Search models' }).waitFor()
    await tabTo('#search-group')
    await page.keyboard.type('extras')
    await page.keyboard.press('Tab')
    await page.keyboard.type('fireRating')
    await page.keyboard.press('Tab')
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'search-op')
    await page.keyboard.press('Tab')
    await page.keyboard.type('rei60')
    await page.keyboard.press('Enter')
    assert.equal(await ended('done'), '3 files found (6 parts)')
    await tabTo('a.file-link')
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'annex.glb')
    await page.keyboard.press('Enter')
    await until(async () => new URL(page.url()).pathname === `/view/${ids['annex.glb']}`, 'the viewer')
    await page.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
    await page.locator('.property-count[data-count="1"]').waitFor()
    assert.equal(await page.locator('.property-count').textContent(), '1 part found')
    assert.deepEqual(errors, [])
  })

  it('stand-ins: empty pages followed, 1,000 files stop it, Stop, a late older answer dropped, a failure', async () => {
    await page.goto(`${server.baseUrl}/search`)
    await page.getByRole('heading', { name: 'Search models' }).waitFor()
    // What cannot be asked says why, without asking.
    await search({ ...REI60, group: '' })
    await page.getByRole('alert').getByText('Give a group and a property.').waitFor()
    // A first page with no file, then pages of 200 with a cursor every time.
    const limits: number[] = []
    await page.route('**/scene/search/files', (route) => {
      const body = route.request().postDataJSON() as { limit: number; cursor?: string }
      limits.push(body.limit)
      const from = Number(body.cursor ?? -1)
      const files = Array.from({ length: from < 0 ? 0 : body.limit }, (_, i) => ({
        file: `f${from + i}`.padStart(24, '0'),
        name: `model ${from + i}.glb`,
        parent: '/',
        role: 'owner',
        matches: 1,
      }))
      return route.fulfill({
        json: { success: true, files, nextCursor: String(from < 0 ? 0 : from + body.limit) },
      })
    })
    await search(REI60)
    assert.equal(
      await ended('capped'),
      '1,000 files found (1,000 parts): the search stops at 1,000 files, narrow it down to see the rest',
    )
    assert.deepEqual(limits, [200, 200, 200, 200, 200, 200])
    assert.equal(await page.locator('.search-results tbody tr').count(), 1000)
    await page.unroute('**/scene/search/files')
    // Held answers: Stop drops the one in flight; a newer search drops an older one's.
    const held: Array<() => Promise<void>> = []
    await page.route('**/scene/search/files', (route: Route) => {
      const value = (route.request().postDataJSON() as { where: { value: string }[] }).where[0]?.value
      const files = [{ file: '0'.repeat(24), name: `${value}.glb`, parent: '/', role: 'viewer', matches: 2 }]
      held.push(() => route.fulfill({ json: { success: true, files, nextCursor: null } }))
    })
    await search({ ...REI60, value: 'slow' })
    assert.equal(await ended('searching'), 'Searching…')
    await page.getByRole('button', { name: 'Stop', exact: true }).click()
    assert.equal(await ended('stopped'), 'Search stopped: no files found so far')
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Search')
    await search({ ...REI60, value: 'older' })
    await search({ ...REI60, value: 'newer' })
    await until(async () => held.length === 3, 'three asked')
    await held[2]?.()
    assert.equal(await ended('done', '1 file'), '1 file found (2 parts)')
    await held[0]?.()
    await held[1]?.()
    await page.waitForTimeout(300)
    assert.deepEqual(await rows(), [['newer.glb', '/', 'Viewer', '2']])
    await page.unroute('**/scene/search/files')
    // A failure is said in words (an alert), the search ends.
    await page.route('**/scene/search/files', (route) => route.abort('connectionreset'))
    await search({ ...REI60, value: 'REI90' })
    await ended('failed')
    assert.ok(((await page.getByRole('alert').textContent()) ?? '').length > 0)
    await page.unroute('**/scene/search/files')
  })
})

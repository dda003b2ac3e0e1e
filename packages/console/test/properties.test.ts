// Model properties and Find by property in Chromium (software WebGL) against a real server: a row of
// panels whose glTF extras (fire rating, width, external) become properties, and an IFC wall with
// quantities in units. The owner reads a part's groups (the first open, the rest folded), values and
// units; finds extras.fireRating = REI60 by keyboard, selects the two found, isolates them (the
// engine's snapshot lists the others hidden) and shows all again; colours the panels that have a
// fire rating by it (the legend's values, colours and counts; the engine's colours; the canvas's
// hues) and by width (a ramp); clears the colours. axe in light and dark with the panel and the
// legend shown; screenshots of both. A search past 5,000 matches (the server's answers stood in
// for) is cut at 5,000 and says so. A viewer and a link's guest read the panel and search and
// colour too.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { apiSession } from './support/api-session.ts'
import { axe, blocking, describeFindings } from './support/axe.ts'
import { collectErrors, launch, signInAsAdmin } from './support/browser.ts'
import { pixels } from './support/canvas-pixels.ts'
import { houseWithProperties, panelsGlb } from './support/property-models.ts'
import { startTessera, type Tessera } from './support/server.ts'

const SHOTS = path.resolve(import.meta.dirname, '../../../docs/console')
const DESKTOP = { width: 1280, height: 800 }
const PASSWORD = 'properties-test-password-1'

let server: Tessera
let browser: Browser
let owner: Page
let errors: string[]
let panelsId = ''
let houseId = ''
let linkAddress = ''
/** Node name → scene-tree id (the panels' file). */
const ids: Record<string, string> = {}
const idsOf = (...names: string[]) => names.map((n) => ids[n] as string).sort()

interface Snapshot {
  selection: { nodes: string[] }
  visibility: { hidden: string[] }
  colours: Record<string, string>
}

function snapshot(p: Page): Promise<Snapshot> {
  return p
    .locator('.viewport canvas')
    .evaluate((c) => (c as unknown as { tesseraSnapshot: () => Snapshot }).tesseraSnapshot())
}

async function until(p: Page, test: () => Promise<boolean>, what: string, timeout = 15_000): Promise<void> {
  const deadline = Date.now() + timeout
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await p.waitForTimeout(100)
  }
}

async function openViewer(p: Page, file: string): Promise<void> {
  await p.goto(`${server.baseUrl}/view/${file}`)
  await p.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
  await p.locator('[role="treeitem"]').first().waitFor()
}

const row = (p: Page, name: string) => p.locator(`[role="treeitem"][data-name="${name}"]`)
const group = (p: Page, name: string) => p.locator(`.properties details[data-group="${name}"]`)
const value = (p: Page, g: string, name: string) => group(p, g).locator(`tr[data-property="${name}"] td`)

/** Pixels of each hue class (saturated enough to be a colour, not the grey panels or background). */
async function hues(p: Page): Promise<Record<'blue' | 'orange' | 'red', number>> {
  const d = await pixels(p)
  const out = { blue: 0, orange: 0, red: 0 }
  for (let i = 0; i < d.length; i += 4) {
    const [r, g, b] = [d[i] ?? 0, d[i + 1] ?? 0, d[i + 2] ?? 0]
    const max = Math.max(r, g, b)
    const c = max - Math.min(r, g, b)
    if (max < 40 || c / max < 0.35) continue
    let h = max === r ? ((g - b) / c) % 6 : max === g ? (b - r) / c + 2 : (r - g) / c + 4
    h = h * 60 < 0 ? h * 60 + 360 : h * 60
    if (h >= 195 && h <= 230) out.blue++
    else if (h >= 18 && h <= 40) out.orange++
    else if (h >= 345 || h <= 8) out.red++
  }
  return out
}

/** Find by property through the form, by keyboard: the summary opened with Enter, Enter in Value. */
async function find(p: Page, query: { group: string; name: string; op: string; value?: string }) {
  const summary = p.locator('.property-find > summary')
  if ((await p.locator('.property-find').getAttribute('open')) === null) {
    await summary.focus()
    await p.keyboard.press('Enter')
  }
  const form = p.locator('.property-query')
  await form.getByLabel('Group', { exact: true }).fill(query.group)
  await form.getByLabel('Property', { exact: true }).fill(query.name)
  await form.getByLabel('Comparison', { exact: true }).selectOption(query.op)
  if (query.value === undefined) await form.getByRole('button', { name: 'Find', exact: true }).press('Enter')
  else {
    await form.getByLabel('Value', { exact: true }).fill(query.value)
    await form.getByLabel('Value', { exact: true }).press('Enter')
  }
}

async function found(p: Page, count: number, text: string): Promise<void> {
  await p.locator(`.property-count[data-count="${count}"]`).waitFor()
  assert.equal(await p.locator('.property-count').textContent(), text)
}

/** Colour the found parts by group · name; the legend's [value, count] rows once it is shown. */
async function colourBy(p: Page, by: string): Promise<[string, number][]> {
  const actions = p.getByRole('group', { name: 'Found parts' })
  await actions.getByLabel('Colour by', { exact: true }).selectOption(by)
  await actions.getByRole('button', { name: 'Colour by value' }).click()
  const legend = p.locator('.property-legend')
  await legend.waitFor()
  await until(
    p,
    async () => (await legend.getByRole('heading').textContent())?.includes(by.split('\n')[1] ?? '') === true,
    'the legend',
  )
  return legend
    .locator('li')
    .evaluateAll((items) =>
      items.map((li) => [(li as HTMLElement).dataset.value ?? '', Number((li as HTMLElement).dataset.count)]),
    )
}

async function themed(p: Page, theme: 'light' | 'dark'): Promise<void> {
  await p.emulateMedia({ colorScheme: theme })
  await until(
    p,
    async () => (await p.evaluate(() => document.documentElement.dataset.theme)) === theme,
    theme,
  )
  await p.waitForTimeout(300)
}

async function assertAxe(p: Page, what: string): Promise<void> {
  const findings = blocking(await axe(p))
  assert.deepEqual(findings, [], `${what}: ${describeFindings(findings)}`)
}

describe('model properties and find by property', { timeout: 600_000 }, () => {
  before(async () => {
    server = await startTessera({ TESSERA_LICENSES: '10' })
    await server.cli(
      ['accounts', 'create', '--email', 'vic@example.com', '--username', 'vic'],
      `${PASSWORD}\n`,
    )
    // Prepared through the API before the page signs in (a session of admin supersedes another).
    const api = await apiSession(server.baseUrl, 'admin', server.adminPassword)
    panelsId = (await api.uploadReady('panels.glb', await panelsGlb()))._id
    houseId = (await api.uploadReady('house-properties.ifc', houseWithProperties()))._id
    await api.call('POST', `/file/${panelsId}/share`, { email: 'vic@example.com', role: 'viewer' })
    const link = await api.call<{ token: string }>('POST', `/file/${panelsId}/link`, {})
    linkAddress = `${server.baseUrl}/#/link/${link.token}`
    const { tree } = await api.call<{ tree: { id: string; name: string; children: unknown[] }[] }>(
      'GET',
      `/file/${panelsId}/scene-tree`,
    )
    const walk = (nodes: { id: string; name: string; children: unknown[] }[]) => {
      for (const n of nodes) {
        ids[n.name] = n.id
        walk(n.children as typeof nodes)
      }
    }
    walk(tree)
    browser = await launch()
    owner = await (await browser.newContext({ viewport: DESKTOP })).newPage()
    errors = collectErrors(owner, [401])
    await signInAsAdmin(owner, server)
  })

  after(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('owner: an IFC wall shows IFC open, the other groups folded, values with units and Yes/No', async () => {
    await openViewer(owner, houseId)
    await row(owner, 'South Wall').click()
    await value(owner, 'IFC', 'class').waitFor()
    assert.equal(await value(owner, 'IFC', 'class').textContent(), 'IfcWall')
    assert.equal(await group(owner, 'IFC').getAttribute('open'), '')
    const quantities = group(owner, 'Qto_WallBaseQuantities')
    assert.equal(await quantities.getAttribute('open'), null, 'quantities folded')
    await quantities.locator('summary').click()
    assert.equal(await value(owner, 'Qto_WallBaseQuantities', 'Length').textContent(), '5 m')
    assert.equal(await value(owner, 'Qto_WallBaseQuantities', 'NetSideArea').textContent(), '14 m²')
    assert.equal(await value(owner, 'Qto_WallBaseQuantities', 'GrossWeight').textContent(), '5,040 kg')
    await group(owner, 'Pset_WallCommon').locator('summary').click()
    assert.equal(await value(owner, 'Pset_WallCommon', 'IsExternal').textContent(), 'Yes')
    assert.equal(await value(owner, 'Pset_WallCommon', 'Width').textContent(), '0.2 m')
    // The section sits above the user's attributes.
    const order = await owner
      .locator('.properties, .attributes')
      .evaluateAll((s) => s.map((x) => x.getAttribute('aria-label')))
    assert.deepEqual(order, ['Model properties', 'Attributes'])
    for (const theme of ['light', 'dark'] as const) {
      await themed(owner, theme)
      await owner.locator('.properties').scrollIntoViewIfNeeded()
      await owner.screenshot({
        path: path.join(SHOTS, `properties-panel${theme === 'dark' ? '-dark' : ''}.png`),
      })
      await assertAxe(owner, `IFC panel, ${theme}`)
    }
    await themed(owner, 'light')
  })

  it('owner: a glTF part shows its extras (open) and Mesh (folded); a group node says nothing', async () => {
    await openViewer(owner, panelsId)
    await row(owner, 'Panel A').click()
    await value(owner, 'extras', 'fireRating').waitFor()
    assert.equal(await group(owner, 'extras').getAttribute('open'), '')
    assert.equal(await group(owner, 'Mesh').getAttribute('open'), null)
    assert.equal(await value(owner, 'extras', 'fireRating').textContent(), 'REI60')
    assert.equal(await value(owner, 'extras', 'width').textContent(), '1.5')
    assert.equal(await value(owner, 'extras', 'external').textContent(), 'Yes')
    assert.equal(await value(owner, 'extras', 'weight').locator('.value').getAttribute('title'), '12.34567')
    assert.equal(await value(owner, 'extras', 'weight').textContent(), '12.346')
    // Opened by keyboard, Mesh stays open on the next part.
    await group(owner, 'Mesh').locator('summary').focus()
    await owner.keyboard.press('Enter')
    assert.equal(await value(owner, 'Mesh', 'materials').textContent(), 'Concrete')
    await row(owner, 'Door').click()
    await until(owner, async () => (await group(owner, 'extras').count()) === 0, 'the door without extras')
    assert.equal(await group(owner, 'Mesh').getAttribute('open'), '')
    await row(owner, 'Panels').click()
    await owner.getByText('The model file says nothing about this part.').waitFor()
  })

  it('owner: extras.fireRating = REI60 finds 2; Select, Isolate (others hidden), Show all', async () => {
    await owner.locator('.viewport canvas').focus()
    await owner.keyboard.press('Escape')
    await find(owner, { group: 'extras', name: 'fireRating', op: 'eq', value: 'REI60' })
    await found(owner, 2, '2 parts found')
    const actions = owner.getByRole('group', { name: 'Found parts' })
    await actions.getByRole('button', { name: 'Select', exact: true }).click()
    assert.deepEqual((await snapshot(owner)).selection.nodes.sort(), idsOf('Panel A', 'Panel C'))
    await owner.getByText('2 parts selected').waitFor()
    await actions.getByRole('button', { name: 'Isolate', exact: true }).press('Enter')
    await until(owner, async () => (await snapshot(owner)).visibility.hidden.length > 0, 'the others hidden')
    assert.deepEqual((await snapshot(owner)).visibility.hidden.sort(), idsOf('Panel B', 'Panel D', 'Door'))
    await actions.getByRole('button', { name: 'Show all', exact: true }).click()
    assert.deepEqual((await snapshot(owner)).visibility.hidden, [])
    assert.equal(await actions.getByRole('button', { name: 'Show all', exact: true }).count(), 0)
  })

  it('owner: colour by value — legend values and counts, the engine and canvas colours, a ramp, clear', async () => {
    await owner.locator('.viewport canvas').focus()
    await owner.keyboard.press('Escape')
    const before = await hues(owner)
    assert.ok(before.blue + before.orange + before.red < 50, `grey panels before: ${JSON.stringify(before)}`)
    await find(owner, { group: 'extras', name: 'fireRating', op: 'exists' })
    await found(owner, 4, '4 parts found')
    assert.deepEqual(await colourBy(owner, 'extras\nfireRating'), [
      ['REI60', 2],
      ['REI30', 1],
      ['REI90', 1],
    ])
    assert.equal(
      await owner.locator('.property-count').textContent(),
      '4 parts found; coloured by extras · fireRating',
    )
    const colours = (await snapshot(owner)).colours
    assert.deepEqual(colours, {
      [ids['Panel A'] as string]: '#4e79a7',
      [ids['Panel C'] as string]: '#4e79a7',
      [ids['Panel B'] as string]: '#f28e2b',
      [ids['Panel D'] as string]: '#e15759',
    })
    const legendColours = await owner
      .locator('.property-legend li')
      .evaluateAll((li) => li.map((x) => (x as HTMLElement).dataset.colour))
    assert.deepEqual(legendColours, ['#4e79a7', '#f28e2b', '#e15759'])
    const after = await hues(owner)
    assert.ok(after.blue > 2 * 150 && after.orange > 150 && after.red > 150, `hues: ${JSON.stringify(after)}`)
    assert.ok(after.blue > 1.4 * after.orange, 'two blue panels, one orange')
    // The panel and the legend together (a coloured part selected), axe in both themes, screenshots.
    await row(owner, 'Panel B').click()
    await value(owner, 'extras', 'fireRating').waitFor()
    for (const theme of ['light', 'dark'] as const) {
      await themed(owner, theme)
      await owner.locator('.property-legend').scrollIntoViewIfNeeded()
      await owner.screenshot({
        path: path.join(SHOTS, `properties-legend${theme === 'dark' ? '-dark' : ''}.png`),
      })
      await assertAxe(owner, `legend, ${theme}`)
    }
    await themed(owner, 'light')
    // A legend row's Select takes its parts.
    await owner.getByRole('button', { name: 'Select the 2 parts of REI60' }).click()
    assert.deepEqual((await snapshot(owner)).selection.nodes.sort(), idsOf('Panel A', 'Panel C'))
    // Numbers: a ramp, one entry per width (four widths).
    assert.deepEqual(await colourBy(owner, 'extras\nwidth'), [
      ['0.9', 1],
      ['1.2', 1],
      ['1.5', 1],
      ['2.25', 1],
    ])
    assert.equal(new Set(Object.values((await snapshot(owner)).colours)).size, 4)
    await owner.getByRole('button', { name: 'Clear colours' }).click()
    assert.deepEqual((await snapshot(owner)).colours, {})
    assert.equal(await owner.locator('.property-legend').count(), 0)
    await owner.locator('.viewport canvas').focus()
    await owner.keyboard.press('Escape')
    const cleared = await hues(owner)
    assert.ok(cleared.blue + cleared.orange + cleared.red < 50, `grey again: ${JSON.stringify(cleared)}`)
    assert.deepEqual(errors, [])
  })

  it('a search past 5,000 matches reads five pages of 1,000 and says that the first 5,000 are used', async () => {
    // The server's answers stood in for (no model of 7,420 parts here): the bound is the console's.
    const asked: number[] = []
    await owner.route('**/scene/search', async (route) => {
      const body = route.request().postDataJSON() as { limit: number; cursor?: string }
      const from = Number(body.cursor ?? 0)
      asked.push(body.limit)
      const nodes = Array.from({ length: body.limit }, (_, i) => `n${from + i}`)
      await route.fulfill({
        json: { success: true, nodes, total: 7420, nextCursor: String(from + body.limit) },
      })
    })
    await find(owner, { group: 'extras', name: 'width', op: 'gt', value: '0' })
    await found(owner, 7420, '7,420 parts found; the first 5,000 are used')
    assert.deepEqual(asked, [1000, 1000, 1000, 1000, 1000])
    await owner.unroute('**/scene/search')
  })

  it('viewer: the panel reads, the search finds and colours', async () => {
    const page = await (await browser.newContext({ viewport: DESKTOP })).newPage()
    const viewerErrors = collectErrors(page, [401])
    await page.goto(server.baseUrl)
    await page.getByLabel('Username').fill('vic')
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'My files' }).waitFor()
    await openViewer(page, panelsId)
    await readAndColour(page, 'viewer')
    assert.deepEqual(viewerErrors, [])
    await page.context().close()
  })

  it('link guest: the panel reads, the search finds and colours', async () => {
    const page = await (await browser.newContext({ viewport: DESKTOP, colorScheme: 'dark' })).newPage()
    const guestErrors = collectErrors(page)
    await page.goto(linkAddress)
    await page.getByTestId('link-banner').waitFor()
    await page.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
    await page.locator('[role="treeitem"]').first().waitFor()
    await readAndColour(page, 'guest')
    assert.deepEqual(guestErrors, [])
    await page.context().close()
  })
})

/** Another reader (a viewer, a guest): Panel C's properties, no field to change them, REI60 coloured. */
async function readAndColour(page: Page, who: string): Promise<void> {
  await row(page, 'Panel C').click()
  await value(page, 'extras', 'fireRating').waitFor()
  assert.equal(await value(page, 'extras', 'width').textContent(), '2.25')
  assert.equal(await page.locator('.properties').locator('input, select, textarea').count(), 0, 'read-only')
  await find(page, { group: 'extras', name: 'fireRating', op: 'eq', value: 'rei60' })
  await found(page, 2, '2 parts found')
  assert.deepEqual(await colourBy(page, 'extras\nwidth'), [
    ['1.5', 1],
    ['2.25', 1],
  ])
  assert.equal(Object.keys((await snapshot(page)).colours).length, 2)
  await assertAxe(page, who)
}

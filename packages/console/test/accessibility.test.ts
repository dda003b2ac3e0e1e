// Accessibility of every console screen: axe-core (test/support/axe.ts) on each screen reached as a
// user reaches it, in the light and the dark theme, on a desktop (1280×800) and a phone (390×844):
// no violation of impact serious or critical. Moderate and minor ones are printed (and listed in
// docs/console.md with why they stay). Also: the sign-in screen focuses the username field.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { type AxeFinding, axe, blocking, describeFindings } from './support/axe.ts'
import { collectErrors, launch } from './support/browser.ts'
import { type FocusProblem, focusProblems } from './support/focus.ts'
import { carGlb, stlCube } from './support/models.ts'
import { startReceiver, startTessera, type Tessera } from './support/server.ts'

const SHOTS = path.resolve(import.meta.dirname, '../../../docs/console')
const DESKTOP = { width: 1280, height: 800 }
const PHONE = { width: 390, height: 844 }
// 401: a session that ended; 404: routes a server may not have. (Bob's account screen asks
// /account/me whether he is an admin, so it makes no refused request: 403 is not expected.)
const EXPECTED = [401, 404]

let server: Tessera
let receiver: Awaited<ReturnType<typeof startReceiver>>
let browser: Browser

/** Findings per "theme viewport screen", printed as a table at the end. */
const report = new Map<string, AxeFinding[]>()
/** Focus stops whose ring cannot be seen, per screen checked with the keyboard. */
const focusReport = new Map<string, FocusProblem[]>()

async function signIn(p: Page, username: string, password: string): Promise<void> {
  await p.getByLabel('Username or e-mail').fill(username)
  await p.getByLabel('Password', { exact: true }).fill(password)
  await p.getByRole('button', { name: 'Sign in' }).click()
}

function row(p: Page, name: string) {
  return p.locator(`.row[data-file="${name}"]`)
}

/** A context for the axe pass, under the console's own CSP, the theme from the system setting. */
function axeContext(theme: 'light' | 'dark', viewport: typeof DESKTOP): Promise<BrowserContext> {
  return browser.newContext({ viewport, deviceScaleFactor: 1, colorScheme: theme })
}

/** Screenshots of the dark theme for docs/console.md: dark-files.png, phone-dark-viewer.png… */
async function darkShot(p: Page, prefix: string, screen: string): Promise<void> {
  if (!prefix.startsWith('dark')) return
  const name = `${prefix.endsWith('phone') ? 'phone-' : ''}dark-${screen}.png`
  await p.screenshot({ path: path.join(SHOTS, name) })
}

async function check(p: Page, key: string, keyboard = false): Promise<void> {
  // Let transitions and late renders settle before axe reads colours.
  await p.waitForTimeout(150)
  const findings = await axe(p)
  report.set(key, findings)
  if (keyboard) focusReport.set(key, await focusProblems(p))
}

/** True once the 3D view's corner pixel is the theme's --viewer-bg (what the viewport box shows). */
function viewerFollowsTheme(p: Page): Promise<unknown> {
  return p.waitForFunction(() => {
    const source = document.querySelector('.viewport canvas') as HTMLCanvasElement | null
    const box = document.querySelector('.viewport')
    if (!source || !box) return false
    const copy = document.createElement('canvas')
    copy.width = source.width
    copy.height = source.height
    const ctx = copy.getContext('2d') as CanvasRenderingContext2D
    ctx.drawImage(source, 0, 0)
    const pixel = ctx.getImageData(3, 3, 1, 1).data
    const expected = (getComputedStyle(box).backgroundColor.match(/\d+/g) ?? []).map(Number)
    return expected.length >= 3 && expected.slice(0, 3).every((c, i) => Math.abs(c - (pixel[i] ?? 0)) <= 3)
  })
}

async function uploadInto(p: Page, folder: string, name: string, buffer: Buffer): Promise<void> {
  await p.goto(`${server.baseUrl}/files${folder === '/' ? '' : `?path=${encodeURIComponent(folder)}`}`)
  await p.getByTestId('upload-input').setInputFiles({ name, mimeType: 'application/octet-stream', buffer })
  await row(p, name).locator('[data-state="ready"]').waitFor({ timeout: 120_000 })
}

/** A delivery's attempts, opened from its row: the panel stays (its loading effect runs once). */
async function checkAttempts(p: Page, key: string, delivery: ReturnType<Page['locator']>): Promise<void> {
  await delivery.getByRole('button', { name: 'Attempts' }).click()
  await p.locator('section.attempts [data-attempt]').first().waitFor()
  await check(p, key)
  await p.getByRole('button', { name: 'Close attempts' }).click()
}

async function checkViewer(p: Page, prefix: string): Promise<void> {
  await p.getByRole('link', { name: 'Files', exact: true }).click()
  await row(p, 'car.glb').click()
  await p.getByRole('link', { name: 'Open viewer' }).click()
  await p.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
  await p.locator('.tree .node', { hasText: 'Body' }).click()
  await p.getByRole('heading', { name: /Attributes of Body/ }).waitFor()
  await viewerFollowsTheme(p)
  await darkShot(p, prefix, 'viewer')
  await check(p, `${prefix} viewer: parts`, true)
  await p.getByRole('tab', { name: /Annotations/ }).click()
  await p.getByRole('button', { name: 'Check the weld', exact: true }).click()
  await p.getByText('Seam looks thin here.').waitFor()
  await check(p, `${prefix} viewer: annotations`)
  await p.getByRole('tab', { name: /Views/ }).click()
  await p.getByRole('button', { name: 'Restore Three-quarter' }).waitFor()
  await check(p, `${prefix} viewer: views`)
}

async function checkWebhooks(p: Page, prefix: string): Promise<void> {
  await p.getByRole('link', { name: 'Webhooks' }).click()
  await p.locator('tr[data-webhook]').first().waitFor()
  await check(p, `${prefix} webhooks`)
  await p.getByRole('button', { name: 'Deliveries' }).first().click()
  const delivery = p.locator('tr[data-delivery]').first()
  await delivery.locator('.tag.succeeded').waitFor({ timeout: 20_000 })
  await check(p, `${prefix} deliveries`, true)
  await checkAttempts(p, `${prefix} attempts`, delivery)
}

/** Every screen, in one theme at one size, as the admin and then as bob (a plain account). */
async function walk(theme: 'light' | 'dark', viewport: typeof DESKTOP, size: string): Promise<void> {
  const prefix = `${theme} ${size}`
  const context = await axeContext(theme, viewport)
  const p = await context.newPage()
  const errors = collectErrors(p, EXPECTED)
  await p.goto(server.baseUrl)
  await p.getByRole('heading', { name: 'Sign in to Tessera' }).waitFor()
  const focusedOnLoad = await p.evaluate(() => document.activeElement?.getAttribute('name'))
  await check(p, `${prefix} sign-in`, true)
  await signIn(p, 'admin', server.adminPassword)
  await row(p, 'car.glb').click()
  await p.getByRole('link', { name: 'Open viewer' }).waitFor()
  await darkShot(p, prefix, 'files')
  await check(p, `${prefix} files`, true)
  await p.locator('.row.folder', { hasText: 'parts' }).click()
  await row(p, 'cube.stl').waitFor()
  await check(p, `${prefix} sub-folder`)
  await p.getByRole('link', { name: 'Shared with me' }).click()
  await p.locator('.files .list, .files .empty').first().waitFor()
  await check(p, `${prefix} shared with me`)
  await p.getByRole('link', { name: 'Favourites' }).click()
  await row(p, 'car.glb').waitFor()
  await check(p, `${prefix} favourites`)
  await checkViewer(p, prefix)
  await checkWebhooks(p, prefix)
  await p.getByRole('link', { name: 'Account' }).click()
  await p.getByText(/in use of/).waitFor()
  await check(p, `${prefix} admin`, true)
  await p.getByRole('button', { name: 'Sign out' }).click()
  // Not before: the admin's "New account" form has Username and Password fields too.
  await p.getByRole('heading', { name: 'Sign in to Tessera' }).waitFor()
  await signIn(p, 'bob', 'bob-password-1')
  await p.getByRole('heading', { name: 'My files' }).waitFor()
  // Bob is no admin: the screen asks /account/me, then shows no administration (and asks no
  // admin route, which would be a refused request: EXPECTED has no 403).
  const asked = p.waitForResponse((r) => new URL(r.url()).pathname === '/account/me')
  await p.getByRole('link', { name: 'Account' }).click()
  await asked
  await p.getByRole('heading', { name: 'Change password' }).waitFor()
  assert.equal(await p.getByRole('region', { name: 'Administration' }).count(), 0)
  await check(p, `${prefix} account`)
  await p.getByRole('button', { name: 'Sign out' }).click()
  await p.getByRole('heading', { name: 'Sign in to Tessera' }).waitFor()
  await context.close()
  assert.deepEqual(errors, [])
  assert.equal(focusedOnLoad, 'username', 'the username field has the focus on load')
  const unseen = [...focusReport].filter(([key, list]) => key.startsWith(prefix) && list.length > 0)
  assert.deepEqual(unseen, [], 'focus rings that cannot be seen')
  const failures = [...report].filter(([key, f]) => key.startsWith(prefix) && blocking(f).length > 0)
  assert.deepEqual(
    failures.map(([key, f]) => `${key}:\n${describeFindings(blocking(f))}`),
    [],
    'serious or critical axe violations',
  )
}

describe('accessibility (axe-core) of every screen', { timeout: 600_000 }, () => {
  before(async () => {
    server = await startTessera({ TESSERA_LICENSES: '4' })
    await server.cli(
      ['accounts', 'create', '--email', 'bob@example.com', '--username', 'bob'],
      'bob-password-1\n',
    )
    receiver = await startReceiver()
    browser = await launch()
  })

  after(async () => {
    printReport()
    await browser?.close()
    receiver?.stop()
    await server?.stop()
  })

  it('prepares, as a user: a model converted, a sub-folder, an annotation, a view, a webhook delivery', async () => {
    const context = await axeContext('light', DESKTOP)
    const p = await context.newPage()
    const errors = collectErrors(p, EXPECTED)
    await p.goto(server.baseUrl)
    await signIn(p, 'admin', server.adminPassword)
    await p.getByRole('heading', { name: 'My files' }).waitFor()
    await uploadInto(p, '/', 'car.glb', Buffer.from(await carGlb()))
    await uploadInto(p, '/parts', 'cube.stl', stlCube(2))
    await p.getByRole('link', { name: 'My files' }).click()
    await row(p, 'car.glb').click()
    // A favourite (issue 32), so the files screens show a pressed star and Favourites lists it.
    await p.locator('.details').getByRole('button', { name: 'Favourite car.glb' }).click()
    await p.locator('.details .star[aria-pressed="true"]').waitFor()
    await p.getByRole('link', { name: 'Open viewer' }).click()
    await p.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
    await p.getByRole('tab', { name: /Annotations/ }).click()
    await p.getByRole('button', { name: 'Place annotation' }).click()
    const box = await p.locator('.viewport canvas').boundingBox()
    assert.ok(box)
    await p.mouse.click(box.x + box.width / 2, box.y + box.height / 2)
    await p.getByLabel('Title').fill('Check the weld')
    await p.getByLabel('Text').fill('Seam looks thin here.')
    await check(p, 'light desktop viewer: new annotation form')
    await p.getByRole('button', { name: 'Save annotation' }).click()
    await p.getByRole('button', { name: 'Check the weld', exact: true }).waitFor()
    await p.getByRole('tab', { name: /Views/ }).click()
    await p.getByLabel('View name').fill('Three-quarter')
    await p.getByRole('button', { name: 'Save current view' }).click()
    await p.getByRole('button', { name: 'Restore Three-quarter' }).waitFor()
    // Locked (issue 32): the views panel shows its lock state and Unlock.
    await p.getByRole('button', { name: 'Lock view Three-quarter' }).click()
    await p.getByRole('button', { name: 'Unlock view Three-quarter' }).waitFor()
    await p.getByRole('link', { name: 'Webhooks' }).click()
    await p.getByLabel('URL').first().fill(receiver.url)
    await p.getByRole('button', { name: 'Generate' }).first().click()
    await p.getByRole('button', { name: 'Create webhook' }).click()
    await p.getByRole('button', { name: 'Deliveries' }).click()
    await p.getByRole('button', { name: 'Send test event' }).click()
    await p.locator('tr[data-delivery] .tag.succeeded').first().waitFor({ timeout: 20_000 })
    await p.getByRole('button', { name: 'Sign out' }).click()
    await p.getByRole('heading', { name: 'Sign in to Tessera' }).waitFor()
    await context.close()
    assert.deepEqual(errors, [])
  })

  it('applies the saved theme before the first paint, switches it, and the 3D view follows', async () => {
    // The console's own CSP applies here (no bypass): theme.js must load as an external script.
    const context = await browser.newContext({ viewport: DESKTOP, colorScheme: 'light' })
    await context.addInitScript(() => {
      // The theme on <html> when the parser creates <body>, i.e. before anything can be painted.
      new MutationObserver((_, observer) => {
        if (!document.body) return
        ;(window as unknown as { themeAtBody: string }).themeAtBody =
          document.documentElement.dataset.theme ?? 'none'
        observer.disconnect()
      }).observe(document, { childList: true, subtree: true })
    })
    const p = await context.newPage()
    const errors = collectErrors(p, EXPECTED)
    const themeAtBody = () => p.evaluate(() => (window as unknown as { themeAtBody: string }).themeAtBody)
    const background = () => p.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)
    await p.goto(server.baseUrl)
    await p.getByRole('heading', { name: 'Sign in to Tessera' }).waitFor()
    assert.equal(await themeAtBody(), 'light', 'System, on a light system')
    assert.equal(await background(), 'rgb(246, 247, 249)')
    await p.getByLabel('Theme').selectOption('dark')
    assert.equal(await background(), 'rgb(15, 20, 26)')
    await p.reload()
    await p.getByRole('heading', { name: 'Sign in to Tessera' }).waitFor()
    assert.equal(await themeAtBody(), 'dark', 'the stored choice, before the first paint')
    assert.equal(await p.getByLabel('Theme').inputValue(), 'dark')
    await signIn(p, 'admin', server.adminPassword)
    await row(p, 'car.glb').click()
    await p.getByRole('link', { name: 'Open viewer' }).click()
    await p.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
    await viewerFollowsTheme(p)
    await p.getByLabel('Theme').selectOption('light')
    assert.equal(await background(), 'rgb(246, 247, 249)')
    await viewerFollowsTheme(p)
    // Back to System: the system's change applies at once, without a reload.
    await p.getByLabel('Theme').selectOption('system')
    assert.equal(await p.evaluate(() => localStorage.getItem('tessera-theme')), null)
    await p.emulateMedia({ colorScheme: 'dark' })
    await p.waitForFunction(() => document.documentElement.dataset.theme === 'dark')
    await viewerFollowsTheme(p)
    await p.getByRole('button', { name: 'Sign out' }).click()
    await p.getByRole('heading', { name: 'Sign in to Tessera' }).waitFor()
    await context.close()
    assert.deepEqual(errors, [])
  })

  for (const theme of ['light', 'dark'] as const) {
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      it(`${theme} theme, ${size}: no serious or critical violation on any screen`, () =>
        walk(theme, viewport, size))
    }
  }
})

function printReport(): void {
  const lines = ['', 'axe-core violations (critical/serious/moderate/minor) per screen:']
  for (const [key, findings] of report) {
    const count = (impact: string) => findings.filter((f) => f.impact === impact).length
    lines.push(
      `  ${key}: ${count('critical')}/${count('serious')}/${count('moderate')}/${count('minor')}` +
        (findings.length ? `  [${findings.map((f) => `${f.impact[0]}:${f.id}×${f.nodes}`).join(' ')}]` : ''),
    )
  }
  const all = [...report.values()].flat()
  const unique = new Map(all.map((f) => [`${f.impact} ${f.id} ${f.targets.join()} ${f.summary}`, f]))
  lines.push('', 'distinct findings:', describeFindings([...unique.values()]))
  for (const [key, problems] of focusReport) {
    for (const f of problems) lines.push(`focus ${key}: ${f.element}: ${f.problem}`)
  }
  console.log(lines.join('\n'))
}

// Live sessions in the viewer, end to end: the owner and a sharee (an editor) open one file in two
// Chromium pages (software WebGL) against a real `tessera serve`. Each sees the other in the
// presence strip; the other's camera is drawn as an avatar where it is and moves with it; the
// other's selection is outlined; following by keyboard puts my camera on theirs until Escape; an
// annotation made by one appears for the other without a reload, with the other's selection kept;
// axe finds nothing serious in the light or the dark theme; whoever leaves is gone from the strip.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { apiSession } from './support/api-session.ts'
import { axe, blocking, describeFindings } from './support/axe.ts'
import { collectErrors, launch } from './support/browser.ts'
import { carGlb } from './support/models.ts'
import { startTessera, type Tessera } from './support/server.ts'

const SHOTS = path.resolve(import.meta.dirname, '../../../docs/console')
const DESKTOP = { width: 1280, height: 800 }
const PASSWORD = 'live-test-password-1'

let server: Tessera
let browser: Browser
let fileId = ''
let linkToken = ''
let owner: Page
let sharee: Page
const errors: string[][] = []

async function prepare(): Promise<void> {
  const api = await apiSession(server.baseUrl, 'admin', server.adminPassword)
  fileId = (await api.uploadReady('car.glb', await carGlb()))._id
  for (const email of ['sam@example.com', 'ed@example.com'])
    await api.call('POST', `/file/${fileId}/share`, { email, role: 'editor' })
  linkToken = (await api.call<{ token: string }>('POST', `/file/${fileId}/link`, {})).token
}

/**
 * The owner lets link visitors join the file's live sessions, or not (PUT /file/:id/live-meetings),
 * from the owner's own page (its cookies; an API session of admin would supersede the page's).
 */
async function allowLiveMeetings(allow: boolean): Promise<void> {
  const status = await owner.evaluate(
    async ({ id, allow }) =>
      (
        await fetch(`/file/${id}/live-meetings`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ allow }),
        })
      ).status,
    { id: fileId, allow },
  )
  assert.equal(status, 200)
}

async function openLink(): Promise<Page> {
  const page = await (await browser.newContext({ viewport: DESKTOP })).newPage()
  errors.push(collectErrors(page))
  await page.goto(`${server.baseUrl}/#/link/${linkToken}`)
  await page.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
  return page
}

async function openAs(username: string, password: string): Promise<Page> {
  const context = await browser.newContext({ viewport: DESKTOP })
  // The page's WebSockets, kept where the test can reach them (to drop one as a network would).
  await context.addInitScript(() => {
    const Native = WebSocket
    const sockets: WebSocket[] = []
    Object.assign(window, { liveSockets: sockets })
    window.WebSocket = class extends Native {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols)
        sockets.push(this)
      }
    }
  })
  const page = await context.newPage()
  errors.push(collectErrors(page, [401]))
  await page.goto(server.baseUrl)
  await page.getByLabel('Username').fill(username)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'My files' }).waitFor()
  await page.goto(`${server.baseUrl}/view/${fileId}`)
  await page.locator('.viewport[data-phase="ready"]').waitFor({ timeout: 60_000 })
  return page
}

type Vec = number[]

async function camera(page: Page): Promise<{ position: Vec; target: Vec }> {
  const n = ((await page.locator('.viewport').getAttribute('data-camera')) ?? '').split(',').map(Number)
  return { position: n.slice(0, 3), target: n.slice(3, 6) }
}

function near(a: Vec, b: Vec, tolerance: number): boolean {
  return a.length === b.length && a.every((v, i) => Math.abs(v - (b[i] ?? Number.NaN)) <= tolerance)
}

/** What the page's engine draws for the others (data attributes the viewer keeps up to date). */
async function drawn<T>(page: Page, what: 'avatars' | 'selections'): Promise<T[]> {
  const raw = await page.locator('.viewport').getAttribute(`data-live-${what}`)
  return raw ? (JSON.parse(raw) as T[]) : []
}

/** Polls `check` until it holds (or fails with `message` after `ms`). */
async function until(check: () => Promise<boolean>, message: () => Promise<string> | string, ms = 10_000) {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 100))
  }
  assert.fail(await message())
}

async function avatarOf(page: Page, name: string): Promise<Vec | undefined> {
  return (await drawn<{ name: string; position: Vec }>(page, 'avatars')).find((a) => a.name === name)
    ?.position
}

/** Orbits the page's camera with the keyboard (a 15° step per key) and waits for it to stop. */
async function orbit(page: Page, key: string, times: number): Promise<{ position: Vec; target: Vec }> {
  await page.locator('.viewport canvas').focus()
  for (let i = 0; i < times; i++) await page.keyboard.press(key)
  await page.waitForTimeout(150)
  return camera(page)
}

/** Pixels of the canvas within a small distance of `hex` (the participant's colour). */
function pixelsOf(page: Page, hex: string): Promise<number> {
  return page.evaluate((colour) => {
    const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(colour.slice(i, i + 2), 16))
    const source = document.querySelector('.viewport canvas') as HTMLCanvasElement
    const copy = document.createElement('canvas')
    copy.width = source.width
    copy.height = source.height
    const ctx = copy.getContext('2d') as CanvasRenderingContext2D
    ctx.drawImage(source, 0, 0)
    const d = ctx.getImageData(0, 0, copy.width, copy.height).data
    let n = 0
    for (let i = 0; i < d.length; i += 4)
      if (
        Math.abs((d[i] ?? 0) - (r ?? 0)) +
          Math.abs((d[i + 1] ?? 0) - (g ?? 0)) +
          Math.abs((d[i + 2] ?? 0) - (b ?? 0)) <
        40
      )
        n++
    return n
  }, hex)
}

async function colourOf(page: Page, name: string): Promise<string> {
  const style = await page
    .locator(`.presence-person[data-participant="${name}"] .presence-face`)
    .evaluate((el) => getComputedStyle(el).backgroundColor)
  const [r, g, b] = (style.match(/\d+/g) ?? []).map(Number)
  return `#${[r, g, b].map((c) => (c ?? 0).toString(16).padStart(2, '0')).join('')}`
}

async function noSeriousAxe(page: Page, theme: string): Promise<void> {
  const found = blocking(await axe(page))
  assert.deepEqual(found, [], `${theme}: ${describeFindings(found)}`)
}

describe('live sessions in the viewer', { timeout: 240_000 }, () => {
  before(async () => {
    server = await startTessera({ TESSERA_LICENSES: '10' })
    for (const name of ['sam', 'ed'])
      await server.cli(
        ['accounts', 'create', '--email', `${name}@example.com`, '--username', name],
        `${PASSWORD}\n`,
      )
    await prepare()
    browser = await launch()
    ;[owner, sharee] = await Promise.all([openAs('admin', server.adminPassword), openAs('sam', PASSWORD)])
  })

  after(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('each sees the other in the presence strip, as a list with names', async () => {
    const people = owner.getByRole('list', { name: 'People here' })
    await people.getByRole('button', { name: 'Follow sam' }).waitFor({ timeout: 15_000 })
    await sharee.getByRole('button', { name: 'Follow admin' }).waitFor({ timeout: 15_000 })
    assert.equal(await people.getByRole('listitem').count(), 2)
    assert.match(
      (await owner.locator('.presence-person[data-participant="admin"]').textContent()) ?? '',
      /admin \(you\)/,
    )
    assert.equal(await owner.locator('.presence[data-live="live"]').count(), 1)
    const box = await people.getByRole('button', { name: 'Follow sam' }).boundingBox()
    assert.ok(box && box.height >= 24 && box.width >= 24, `target ${JSON.stringify(box)}`)
  })

  it("draws the other's camera as an avatar that moves with it", async () => {
    // The sharee turns 90° around the car: their avatar, at the owner's, goes where their camera is.
    const moved = await orbit(sharee, 'ArrowLeft', 6)
    await until(
      async () => near((await avatarOf(owner, 'sam')) ?? [], moved.position, 0.01),
      async () => `avatar at ${await avatarOf(owner, 'sam')}, camera at ${moved.position}`,
    )
    // Seen from farther back, the owner has the sharee's avatar (a pyramid in their colour) in view;
    // with the model hidden, nothing else on the canvas can have that colour.
    await orbit(owner, '-', 4)
    await owner.screenshot({ path: path.join(SHOTS, 'live-avatars.png') })
    const colour = await colourOf(owner, 'sam')
    await owner.getByRole('button', { name: 'Hide Car' }).click()
    await until(
      async () => (await pixelsOf(owner, colour)) > 100,
      async () => `only ${await pixelsOf(owner, colour)} pixels of ${colour}`,
    )
    await owner.getByRole('button', { name: 'Show all' }).click()
  })

  it("outlines the other's selection in their colour, and clears it with theirs", async () => {
    await sharee.locator('.tree .node', { hasText: 'Body' }).click()
    const bodyId = await sharee.locator('.tree [data-name="Body"]').getAttribute('data-id')
    type Shown = { name: string; ids: string[] }
    await until(
      async () =>
        (await drawn<Shown>(owner, 'selections')).some((s) => s.name === 'sam' && s.ids[0] === bodyId),
      async () => `selections ${JSON.stringify(await drawn(owner, 'selections'))}`,
    )
    await owner.screenshot({ path: path.join(SHOTS, 'live-selection.png') })
    // Several parts (Ctrl+click in the tree, docs/console.md "Selection"): the whole set is shared.
    const wheel = sharee.locator('.tree [data-name="Wheel"]').first()
    const both = [bodyId, await wheel.getAttribute('data-id')].join()
    await wheel.click({ modifiers: ['ControlOrMeta'] })
    await until(
      async () =>
        (await drawn<Shown>(owner, 'selections')).some((s) => s.name === 'sam' && s.ids.join() === both),
      async () => `selections ${JSON.stringify(await drawn(owner, 'selections'))}`,
    )
    await sharee.locator('.viewport canvas').focus()
    await sharee.keyboard.press('Escape')
    await until(
      async () => (await drawn<Shown>(owner, 'selections')).length === 0,
      async () => `selections ${JSON.stringify(await drawn(owner, 'selections'))}`,
    )
  })

  it('follows by keyboard: my camera goes with theirs until Escape', async () => {
    // From the file's name, Tab reaches the people: mine is no button, the sharee's is.
    await owner.getByRole('link', { name: '← Files' }).focus()
    const follow = owner.getByRole('button', { name: 'Follow sam' })
    for (let i = 0; i < 6 && !(await follow.evaluate((el) => el === document.activeElement)); i++)
      await owner.keyboard.press('Tab')
    assert.ok(await follow.evaluate((el) => el === document.activeElement), 'Tab did not reach Follow sam')
    await owner.keyboard.press('Enter')
    assert.equal(await follow.getAttribute('aria-pressed'), 'true')
    await until(
      async () => /Following sam/.test((await owner.locator('.presence [aria-live]').textContent()) ?? ''),
      () => 'no announcement',
    )
    const theirs = await camera(sharee)
    await until(
      async () => near((await camera(owner)).position, theirs.position, 0.01),
      async () => `mine ${(await camera(owner)).position}, theirs ${theirs.position}`,
    )
    await sharee.getByRole('listitem').filter({ hasText: 'follows you' }).waitFor()
    const next = await orbit(sharee, 'ArrowUp', 2)
    await until(
      async () => near((await camera(owner)).position, next.position, 0.01),
      async () => `mine ${(await camera(owner)).position}, theirs ${next.position}`,
    )
    await owner.keyboard.press('Escape')
    assert.equal(await follow.getAttribute('aria-pressed'), 'false')
    await until(
      async () =>
        /Stopped following sam/.test((await owner.locator('.presence [aria-live]').textContent()) ?? ''),
      () => 'no announcement',
    )
    const mine = await camera(owner)
    await orbit(sharee, 'ArrowLeft', 2)
    await sharee.waitForTimeout(500)
    assert.ok(near((await camera(owner)).position, mine.position, 1e-4), 'still following after Escape')
  })

  it("shows the other's new annotation without a reload, keeping my selection", async () => {
    await owner.evaluate(() => {
      ;(window as unknown as { unreloaded: boolean }).unreloaded = true
    })
    await owner.locator('.tree .node', { hasText: 'Body' }).click()
    await sharee.getByRole('tab', { name: /Annotations/ }).click()
    await sharee.getByRole('button', { name: 'Place annotation' }).click()
    await sharee.locator('.viewport canvas').click()
    await sharee.getByLabel('Title').fill('Seen live')
    await sharee.getByRole('button', { name: 'Save annotation' }).click()
    await owner.getByRole('tab', { name: 'Annotations (1)' }).waitFor({ timeout: 10_000 })
    assert.equal(await owner.evaluate(() => (window as unknown as { unreloaded?: boolean }).unreloaded), true)
    assert.equal(await owner.locator('.tree [data-name="Body"]').getAttribute('aria-selected'), 'true')
  })

  it("follows the file's start configuration: no avatars, selections or follow while it turns them off", async () => {
    // A third editor (through the API: a browser page's account would lose its session to it).
    const ed = await apiSession(server.baseUrl, 'ed', PASSWORD)
    await sharee.getByRole('tab', { name: 'Parts' }).click()
    await sharee.locator('.tree .node', { hasText: 'Body' }).click()
    await until(
      async () => (await drawn(owner, 'selections')).length === 1,
      () => 'no selection drawn',
    )
    const share = { collaborativeAvatarsEnabled: false, collaborativeSelectionEnabled: false }
    const saved = await ed.call<{ configuration: { _id: string } }>('POST', '/file/configuration/', {
      file: fileId,
      name: 'Start',
      activeOnStart: true,
      ...share,
    })
    await until(
      async () =>
        (await drawn(owner, 'avatars')).length === 0 && (await drawn(owner, 'selections')).length === 0,
      async () =>
        `still drawn: ${await avatarOf(owner, 'sam')}, ${JSON.stringify(await drawn(owner, 'selections'))}`,
    )
    // sam is still listed, but there is no camera to follow; the new view is listed without a reload.
    await owner.locator('span.presence-person[data-participant="sam"]').waitFor()
    assert.equal(await owner.getByRole('button', { name: 'Follow sam' }).count(), 0)
    await owner.getByRole('tab', { name: 'Views (1)' }).waitFor()
    await ed.call('POST', '/file/configuration/', {
      _id: saved.configuration._id,
      collaborativeAvatarsEnabled: true,
      collaborativeSelectionEnabled: true,
    })
    await owner.getByRole('button', { name: 'Follow sam' }).waitFor({ timeout: 10_000 })
    // Back on: sam's selection, unchanged since, is outlined again (sam's page sent it again).
    await until(
      async () => (await drawn(owner, 'selections')).length === 1,
      () => 'selection not back',
    )
    const moved = await orbit(sharee, 'ArrowRight', 1)
    await until(
      async () => near((await avatarOf(owner, 'sam')) ?? [], moved.position, 0.01),
      async () => `avatar at ${await avatarOf(owner, 'sam')}, camera at ${moved.position}`,
    )
  })

  it('passes axe in the light and the dark theme', async () => {
    await noSeriousAxe(owner, 'light')
    await owner.getByLabel('Theme').selectOption('dark')
    // The sharee's avatar and selection in view for the dark screenshot.
    await sharee.getByRole('tab', { name: 'Parts' }).click()
    await sharee.locator('.tree .node', { hasText: 'Body' }).click()
    await orbit(owner, '-', 4)
    await owner.waitForTimeout(300)
    await noSeriousAxe(owner, 'dark')
    await owner.screenshot({ path: path.join(SHOTS, 'dark-live.png') })
  })

  it('comes back after a drop, as the same participant, and its camera is sent again', async () => {
    const before = await avatarOf(owner, 'sam')
    const samId = () => owner.locator('.presence-person[data-participant="sam"]').getAttribute('data-id')
    const idBefore = await samId()
    await sharee.evaluate(() =>
      (window as unknown as { liveSockets: WebSocket[] }).liveSockets.at(-1)?.close(3000),
    )
    await sharee.locator('.presence[data-live="reconnecting"]').waitFor({ timeout: 10_000 })
    await sharee.locator('.presence[data-live="live"]').waitFor({ timeout: 10_000 })
    await sharee.getByRole('button', { name: 'Follow admin' }).waitFor()
    await owner.locator('.presence-person[data-participant="sam"]').waitFor()
    assert.equal(
      await sharee.evaluate(() => (window as unknown as { liveSockets: unknown[] }).liveSockets.length),
      2,
    )
    // Resumed (hello with its old id): the sharee is the same participant, to itself and to the owner.
    const ownId = await sharee.locator('.presence-person[data-participant="sam"]').getAttribute('data-id')
    assert.equal(ownId, idBefore)
    await until(
      async () => (await samId()) === idBefore,
      async () => `sam is now ${await samId()}`,
    )
    const moved = await orbit(sharee, 'ArrowRight', 3)
    await until(
      async () => near((await avatarOf(owner, 'sam')) ?? [], moved.position, 0.01),
      async () =>
        `avatar at ${await avatarOf(owner, 'sam')} (before the drop ${before}), camera at ${moved.position}`,
    )
  })

  it('a guest from a link joins with a name where live meetings are allowed, else sees none', async () => {
    await allowLiveMeetings(true)
    const guest = await openLink()
    const join = guest.getByRole('form', { name: 'Join the live session' })
    await join.getByLabel('Your name').fill('Ada Guest')
    await guest.screenshot({ path: path.join(SHOTS, 'live-guest-join.png') })
    await join.getByLabel('Your name').press('Enter')
    const ada = owner.locator('.presence-person[data-participant="Ada Guest"]')
    await ada.waitFor({ timeout: 10_000 })
    assert.match((await ada.textContent()) ?? '', /guest/)
    assert.match(
      (await guest.locator('.presence-person[data-participant="Ada Guest"]').textContent()) ?? '',
      /Ada Guest \(you\)guest/,
    )
    await guest.getByRole('button', { name: 'Follow admin' }).waitFor()
    await noSeriousAxe(guest, 'guest')
    await orbit(guest, '-', 4)
    await guest.screenshot({ path: path.join(SHOTS, 'live-guest.png') })
    // Turned off while they are in: the server ends the guest's session, the strip says so and
    // stops (no reconnection), and the others see them leave.
    // At once, not at the server's periodic re-check (10 s, TESSERA_LIVE_RECHECK).
    await allowLiveMeetings(false)
    await guest.locator('.presence[data-live="refused"]').waitFor({ timeout: 15_000 })
    await ada.waitFor({ state: 'detached', timeout: 15_000 })
    // Off when the link is opened: no live session at all.
    const late = await openLink()
    await late.waitForTimeout(500)
    assert.equal(await late.locator('.presence').count(), 0)
    await guest.context().close()
    await late.context().close()
  })

  it('removes whoever leaves the viewer, from the strip and the 3D view', async () => {
    // Leaving the viewer (not the page) closes the session.
    await sharee.getByRole('link', { name: '← Files' }).click()
    await sharee.getByRole('heading', { name: 'Shared with me' }).waitFor()
    await owner
      .locator('.presence-person[data-participant="sam"]')
      .waitFor({ state: 'detached', timeout: 10_000 })
    await until(
      async () => (await avatarOf(owner, 'sam')) === undefined,
      () => 'the avatar stayed',
    )
    assert.deepEqual(errors.flat(), [])
  })
})

// The browser entry in real headless Chromium: esbuild bundles @tessera/client and
// @tessera/client/webhooks for the browser (a Node-only import would fail the bundle), a tiny
// server serves them and proxies the API to a real `tessera serve` on the same origin, and the page
// connects, lists, uploads a model from a Blob with progress, waits until it is ready, and verifies
// a webhook signature with Web Crypto.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { readFile } from 'node:fs/promises'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { type Browser, chromium } from 'playwright-core'
import { Webhook } from 'standardwebhooks'
import { SMALL_HOUSE } from './support/receiver.ts'
import { type Instance, startTessera } from './support/server.ts'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

async function bundle(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(import.meta.resolve(entry))],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'chrome120',
    write: false,
  })
  return result.outputFiles[0]?.text ?? ''
}

/** Serves the bundles and the fixture; everything else goes to the Tessera instance. */
async function startStatic(
  files: Record<string, { type: string; body: string | Buffer }>,
  api: string,
): Promise<Server> {
  const target = new URL(api)
  const server = createServer((req, res) => {
    const file = files[req.url ?? '']
    if (file) return void res.writeHead(200, { 'content-type': file.type }).end(file.body)
    const upstream = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    upstream.on('error', () => res.writeHead(502).end())
    req.pipe(upstream)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return server
}

let tessera: Instance
let site: Server
let browser: Browser

before(async () => {
  tessera = await startTessera('sqlite')
  site = await startStatic(
    {
      '/': { type: 'text/html', body: '<!doctype html><title>sdk</title>' },
      '/sdk.js': { type: 'text/javascript', body: await bundle('@tessera/client') },
      '/webhooks.js': { type: 'text/javascript', body: await bundle('@tessera/client/webhooks') },
      '/small-house.ifc': { type: 'application/octet-stream', body: await readFile(SMALL_HOUSE) },
    },
    tessera.url,
  )
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true })
})

after(async () => {
  await browser?.close()
  site?.closeAllConnections()
  site?.close()
  await tessera?.stop()
})

test('Chromium: connect, list, upload a Blob with progress, wait until ready, verify a signature', async () => {
  const page = await browser.newPage()
  // tsx compiles this file with keepNames: the functions handed to evaluate() call its __name helper.
  await page.addInitScript('globalThis.__name = (f) => f')
  await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`)
  const result = await page.evaluate(async (credentials) => {
    const { Tessera } = await import('/sdk.js' as string)
    const tessera = await Tessera.connect({ url: location.origin, ...credentials })
    const before = await tessera.files.list()
    const blob = await (await fetch('/small-house.ifc')).blob()
    const progress: Array<{ loaded: number; total: number }> = []
    const file = await tessera.files.upload(new File([blob], 'small-house.ifc'), {
      parent: '/browser',
      onProgress: (p: { loaded: number; total: number }) => progress.push(p),
    })
    const ready = await tessera.files.waitUntilReady(file._id, { timeoutMs: 120_000 })
    const listed = await tessera.files.list('/browser')
    const glb = new Uint8Array(
      await new Response(await tessera.files.downloadOptimized(file._id)).arrayBuffer(),
    )
    await tessera.close()
    return {
      before: before.length,
      size: blob.size,
      progress,
      state: ready.state,
      listed: listed.map((f: { key: string }) => f.key),
      magic: String.fromCharCode(...glb.subarray(0, 4)),
    }
  }, tessera.admin)
  assert.equal(result.before, 0)
  assert.equal(result.state, 'ready')
  assert.deepEqual(result.listed, ['/browser/small-house.ifc'])
  assert.equal(result.magic, 'glTF')
  assert.ok(result.progress.length > 0, 'XMLHttpRequest reported upload progress')
  assert.deepEqual(result.progress.at(-1), { loaded: result.size, total: result.size })

  // The verifier runs in the browser too (Web Crypto), on a vector made by standardwebhooks.
  const secret = 'k7Qx-9vR2mWp4ZtL8bNc'
  const body = JSON.stringify({
    file: 'f'.repeat(24),
    event: 'file_uploaded',
    data: {},
    owner: 'a@b.c',
    runTimestamp: 1,
    uuid: 'u-1',
  })
  const at = new Date()
  const signature = new Webhook(`whsec_${Buffer.from(secret).toString('base64')}`).sign('u-1', at, body)
  const headers = {
    'webhook-id': 'u-1',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  }
  const verified = await page.evaluate(
    async ({ headers, body, secret }) => {
      const { verifyWebhook } = await import('/webhooks.js' as string)
      const envelope = await verifyWebhook({ headers: new Headers(headers), body, secret })
      const refused = await verifyWebhook({ headers: new Headers(headers), body: `${body} `, secret }).catch(
        (e: { reason: string }) => e.reason,
      )
      return { event: envelope.event, refused }
    },
    { headers, body, secret },
  )
  assert.deepEqual(verified, { event: 'file_uploaded', refused: 'bad_signature' })
})

test('Chromium, cookie mode: HttpOnly tokens, CSRF header on writes, upload, events, resume after a reload, logout', async () => {
  const page = await browser.newPage()
  await page.addInitScript('globalThis.__name = (f) => f')
  const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
  await page.goto(`${origin}/`)
  const signedIn = await page.evaluate(async (credentials) => {
    const { Tessera } = await import('/sdk.js' as string)
    const tessera = await Tessera.connect({ url: location.origin, ...credentials, cookies: true })
    const blob = await (await fetch('/small-house.ifc')).blob()
    const events = tessera.events({ events: ['file_uploaded'] })
    const first = events.next()
    const file = await tessera.files.upload(new File([blob], 'cookie-house.ifc'), { parent: '/cookie' })
    const event = await first
    await events.return(undefined)
    return {
      authToken: tessera.authToken,
      sessionToken: tessera.sessionToken,
      scriptCookies: document.cookie,
      account: tessera.account,
      uploaded: file.key,
      event: event.value?.envelope?.event,
      listed: (await tessera.files.list('/cookie')).map((f: { key: string }) => f.key),
    }
  }, tessera.admin)
  assert.deepEqual(signedIn, {
    authToken: '',
    sessionToken: '',
    scriptCookies: '',
    account: { username: tessera.admin.username, email: signedIn.account.email },
    uploaded: '/cookie/cookie-house.ifc',
    event: 'file_uploaded',
    listed: ['/cookie/cookie-house.ifc'],
  })
  const cookies = await page.context().cookies(origin)
  assert.deepEqual(cookies.map((c) => [c.name, c.httpOnly]).sort(), [
    ['X-Service-Session', true],
    ['jsonwebtoken', true],
  ])

  // A reload: no token in the page any more; the cookies still hold the session.
  await page.reload()
  const resumed = await page.evaluate(async () => {
    const { Tessera } = await import('/sdk.js' as string)
    const tessera = await Tessera.resume({ url: location.origin, cookies: true })
    const listed = (await tessera.files.list('/cookie')).length
    await tessera.logout()
    const again = await Tessera.resume({ url: location.origin, cookies: true }).catch(
      (e: { status: number }) => e.status,
    )
    return { username: tessera.account?.username, listed, again }
  })
  assert.deepEqual(resumed, { username: tessera.admin.username, listed: 1, again: 401 })
  await page.close()
})

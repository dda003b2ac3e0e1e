// /metrics protection: TESSERA_METRICS_TOKEN requires a bearer token; TESSERA_METRICS_LISTEN moves
// the operations routes to an address of their own. By default /metrics stays open on the API port.
import assert from 'node:assert/strict'
import net from 'node:net'
import { after, before, describe, test } from 'node:test'
import { loadConfig } from '../../src/app/config.ts'
import { problemOf } from '../support/api.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

const TOKEN = 'metrics-secret-0123456789'
const [sqlite] = dialects()

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

test('the metrics variables are validated', () => {
  assert.throws(() => loadConfig({ TESSERA_METRICS_TOKEN: 'short' }), /TESSERA_METRICS_TOKEN/)
  assert.throws(() => loadConfig({ TESSERA_METRICS_LISTEN: 'host:port' }), /TESSERA_METRICS_LISTEN/)
  const config = loadConfig({ TESSERA_METRICS_LISTEN: '9464', HOST: '0.0.0.0' })
  assert.deepEqual(config.metricsListen, { host: '0.0.0.0', port: 9464 })
  assert.deepEqual(loadConfig({ TESSERA_METRICS_LISTEN: '[::1]:9464' }).metricsListen, {
    host: '::1',
    port: 9464,
  })
  const defaults = loadConfig({})
  assert.equal(defaults.metricsToken, undefined)
  assert.equal(defaults.metricsListen, undefined)
})

describe('metrics token', () => {
  let t: TestApp
  before(async () => {
    assert.ok(sqlite)
    t = await startApp(sqlite, { metricsToken: TOKEN })
  })
  after(() => t.close())

  test('without the bearer token /metrics answers 401; with it 200; health checks stay open', async () => {
    const scrape = (headers: Record<string, string>) =>
      t.app.inject({ method: 'GET', url: '/metrics', headers })
    const missing = await scrape({})
    assert.equal(missing.statusCode, 401)
    assert.equal(problemOf(missing).code, 'AUTH_TOKEN_MISSING')
    assert.match(String(missing.headers['www-authenticate']), /^Bearer/)
    const wrong = await scrape({ authorization: 'Bearer metrics-secret-0123456788' })
    assert.equal(wrong.statusCode, 401)
    assert.equal(problemOf(wrong).code, 'AUTH_TOKEN_INVALID')
    const right = await scrape({ authorization: `Bearer ${TOKEN}` })
    assert.equal(right.statusCode, 200)
    assert.match(right.body, /tessera_webhook_deliveries_total/)
    assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200)
    assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200)
  })
})

describe('metrics listener', () => {
  let t: TestApp
  let port: number
  before(async () => {
    assert.ok(sqlite)
    port = await freePort()
    t = await startApp(sqlite, { metricsToken: TOKEN, metricsListen: { host: '127.0.0.1', port } })
  })
  after(() => t.close())

  test('/metrics moves to TESSERA_METRICS_LISTEN, still behind the token', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404)
    const refused = await fetch(`http://127.0.0.1:${port}/metrics`)
    assert.equal(refused.status, 401)
    await refused.arrayBuffer()
    const scraped = await fetch(`http://127.0.0.1:${port}/metrics`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    })
    assert.equal(scraped.status, 200)
    assert.match(await scraped.text(), /tessera_webhook_deliveries_total/)
    const health = await fetch(`http://127.0.0.1:${port}/healthz`)
    assert.equal(health.status, 200)
    await health.arrayBuffer()
  })
})

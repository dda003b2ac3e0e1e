// The console's static serving (src/app/console.ts): its CSP, the SPA fallback for browser navigations
// only, API paths and non-HTML requests left to the 404 problem, and no console when unbuilt.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import { CONSOLE_CSP, consoleRoutes } from '../../src/app/console.ts'
import { installHttpKernel } from '../../src/platform/http.ts'

const INDEX = '<!doctype html><div id="app"></div>'
const HTML = { accept: 'text/html,application/xhtml+xml' }

describe('console static serving', () => {
  let dist: string
  let app: FastifyInstance
  before(async () => {
    dist = mkdtempSync(path.join(os.tmpdir(), 'tessera-console-dist-'))
    mkdirSync(path.join(dist, 'assets'))
    writeFileSync(path.join(dist, 'index.html'), INDEX)
    writeFileSync(path.join(dist, 'assets', 'index-abc.js'), 'console.log(1)')
    app = Fastify()
    installHttpKernel(app, { bodyLimit: 1024 })
    app.get('/file/:id', async () => ({ success: true }))
    assert.equal(await consoleRoutes(app, dist), true)
  })
  after(async () => {
    await app.close()
    rmSync(dist, { recursive: true, force: true })
  })

  it('serves index.html at / and for client routes, with the CSP', async () => {
    for (const url of ['/', '/files?path=%2Fa', '/view/0123', '/settings']) {
      const res = await app.inject({ url, headers: HTML })
      assert.equal(res.statusCode, 200, url)
      assert.equal(res.body, INDEX)
      assert.equal(res.headers['content-security-policy'], CONSOLE_CSP)
      assert.equal(res.headers['cache-control'], 'no-cache')
    }
  })

  it('serves hashed assets as immutable, with the CSP', async () => {
    const res = await app.inject({ url: '/assets/index-abc.js' })
    assert.equal(res.statusCode, 200)
    assert.match(String(res.headers['content-type']), /javascript/)
    assert.match(String(res.headers['cache-control']), /immutable/)
    assert.equal(res.headers['content-security-policy'], CONSOLE_CSP)
  })

  it('leaves API paths, non-HTML requests and other methods to the 404 problem', async () => {
    const cases = [
      { url: '/file/1/nope', headers: HTML },
      { url: '/webhook/x/y', headers: HTML },
      { url: '/some/page', headers: { accept: 'application/json' } },
      { url: '/assets/missing.js', headers: {} },
    ]
    for (const c of cases) {
      const res = await app.inject({ url: c.url, headers: c.headers })
      assert.equal(res.statusCode, 404, c.url)
      assert.equal(res.json().code, 'ROUTE_NOT_FOUND')
    }
    const post = await app.inject({ method: 'POST', url: '/files', headers: HTML })
    assert.equal(post.json().code, 'ROUTE_NOT_FOUND')
    assert.equal((await app.inject({ url: '/file/1' })).json().success, true)
  })

  it('serves nothing when the console is not built', async () => {
    const bare = Fastify({ logger: false })
    installHttpKernel(bare, { bodyLimit: 1024 })
    assert.equal(await consoleRoutes(bare, path.join(dist, 'missing')), false)
    assert.equal((await bare.inject({ url: '/', headers: HTML })).statusCode, 404)
    await bare.close()
  })
})

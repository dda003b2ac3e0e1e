// The client commands of the `tessera` binary (login, upload, ls, download, listen --forward-to,
// trigger, webhooks) as child processes against a real `tessera serve` on SQLite.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { rmSync } from 'node:fs'
import { readFile, stat, writeFile } from 'node:fs/promises'
import { createServer, type Server as HttpServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { PassThrough } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { Tessera } from '@tessera/client'
import { verifyWebhook } from '@tessera/client/webhooks'
import { Webhook } from 'standardwebhooks'
import { type SseFrame, sseFrames } from '../src/listen.ts'
import { barRenderer, lineRenderer } from '../src/upload.ts'
import { BIN, type Server, spawnCli, startServer, tempDir } from './support/server.ts'

const IFC = path.resolve(import.meta.dirname, '../../server/test/fixtures/conversion/small-house.ifc')
const SECRET = 'q4Vd-7hYz2KpX9mRw3Ls'

interface Received {
  path: string
  headers: IncomingHttpHeaders
  body: string
}

/** A local receiver recording every POST (answers 200 {"success": true}, as a webhook wants). */
async function startReceiver(): Promise<{ server: HttpServer; url: string; received: Received[] }> {
  const received: Received[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString()
    })
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body })
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received }
}

async function until<T>(what: string, fn: () => T | undefined, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    const value = fn()
    if (value !== undefined && value !== false) return value
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`timed out waiting for ${what}`)
}

/**
 * One server, on SQLite: the client commands only speak HTTP, so the server's storage is not what
 * they test (every route runs on both dialects in the API suites). Each `tessera` run is a process
 * start, so running them twice would double the file's time for nothing.
 */
const sqliteDir = tempDir()
const targets: { name: string; env: () => Promise<Record<string, string>>; cleanup: () => Promise<void> }[] =
  [
    {
      name: 'sqlite',
      env: async () => ({ TESSERA_DATA_DIR: sqliteDir }),
      cleanup: async () => rmSync(sqliteDir, { recursive: true, force: true }),
    },
  ]

for (const target of targets)
  describe(`tessera client commands on ${target.name}`, () => {
    let server: Server
    let env: Record<string, string>
    let admin: { username: string; password: string }
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    let ifcId = ''

    /** `tessera ARGS` with `input` on stdin (not a TTY), so progress is printed as plain lines. */
    function cli(
      args: string[],
      input = '',
      extraEnv: Record<string, string> = {},
    ): Promise<{ code: number; stdout: string; stderr: string }> {
      return new Promise((resolve) => {
        const child = execFile(
          process.execPath,
          [BIN, ...args],
          { env: { ...process.env, ...env, ...extraEnv }, timeout: 120_000 },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        )
        child.stdin?.end(input)
      })
    }

    async function withSdk<T>(fn: (tessera: Tessera) => Promise<T>): Promise<T> {
      return withSdkAs(admin.username, admin.password, fn)
    }

    async function withSdkAs<T>(
      username: string,
      password: string,
      fn: (tessera: Tessera) => Promise<T>,
    ): Promise<T> {
      const tessera = await Tessera.connect({ url: server.baseUrl, username, password })
      try {
        return await fn(tessera)
      } finally {
        await tessera.close()
      }
    }

    before(async () => {
      receiver = await startReceiver()
      server = await startServer({ ...(await target.env()), TESSERA_WEBHOOK_ALLOW_PRIVATE_URLS: 'true' })
      const match = /username: (\S+)\n\s+password: (\S+)/.exec(server.output())
      assert.ok(match?.[1] && match[2], server.output())
      admin = { username: match[1], password: match[2] }
      env = { XDG_CONFIG_HOME: tempDir('tessera-cli-config-'), TESSERA_URL: server.baseUrl }
    })
    after(async () => {
      if (server?.child.exitCode === null) server.child.kill('SIGKILL')
      receiver?.server.close()
      if (env?.XDG_CONFIG_HOME) rmSync(env.XDG_CONFIG_HOME, { recursive: true, force: true })
      await target.cleanup()
    })

    test('login reads the password from stdin and writes a 0600 credentials file', async () => {
      const wrong = await cli(['login', '--username', admin.username], 'not-the-password\n')
      assert.equal(wrong.code, 1, wrong.stderr)
      assert.match(wrong.stderr, /INVALID_CREDENTIALS|UNAUTHORIZED|401/)
      const run = await cli(['login', '--username', admin.username], `${admin.password}\n`)
      assert.equal(run.code, 0, run.stderr)
      const file = path.join(env.XDG_CONFIG_HOME ?? '', 'tessera', 'credentials.json')
      assert.equal((await stat(file)).mode & 0o777, 0o600)
      assert.equal((await stat(path.dirname(file))).mode & 0o777, 0o700)
      const stored = JSON.parse(await readFile(file, 'utf8')) as {
        instances: Record<string, { authToken: string }>
      }
      assert.ok(stored.instances[server.baseUrl]?.authToken)
      assert.ok(!(await readFile(file, 'utf8')).includes(admin.password), 'the password is not stored')
    })

    test('upload --wait of an IFC prints plain lines and exits 0; ls --json lists it', async () => {
      const run = await cli(['upload', '--wait', '--parent', '/models', IFC])
      assert.equal(run.code, 0, run.stdout + run.stderr)
      assert.match(run.stdout, /^small-house\.ifc: uploading /m)
      assert.match(run.stdout, /^small-house\.ifc: uploaded 100%$/m)
      const ready = /^small-house\.ifc: ready (\w+) \(\/models\/small-house\.ifc\)$/m.exec(run.stdout)
      assert.ok(ready?.[1], run.stdout)
      ifcId = ready[1]
      assert.ok(!run.stdout.includes('\x1b['), 'no terminal escapes when stdout is not a TTY')
      const ls = await cli(['ls', '/models', '--json'])
      assert.equal(ls.code, 0, ls.stderr)
      const files = JSON.parse(ls.stdout) as { _id: string; state: string }[]
      assert.deepEqual(
        files.map((f) => [f._id, f.state]),
        [[ifcId, 'ready']],
      )
      const table = await cli(['ls', '/models'])
      assert.match(table.stdout, new RegExp(`^${ifcId}\\s+ready\\s+.*/models/small-house\\.ifc$`, 'm'))
      // The root shows its sub-folders (before its files), each with the files in and below it.
      const root = await cli(['ls'])
      assert.equal(root.code, 0, root.stderr)
      assert.match(root.stdout, /^folder\s+1 file\s+\/models\/$/m)
    })

    test('ls --shared lists the files another account shared, with the role', async () => {
      const password = 'a long enough password 42'
      await withSdk(async (tessera) => {
        const created = await tessera.api.POST('/admin/accounts', {
          body: { email: 'reader@example.com', username: 'reader', password },
        })
        assert.equal(created.response.status, 200)
        await tessera.files.share(ifcId, 'reader@example.com', 'viewer')
      })
      // The reader logs in from the environment, with credentials of its own.
      const reader = { XDG_CONFIG_HOME: tempDir('tessera-cli-reader-'), TESSERA_USERNAME: 'reader' }
      const json = await cli(['ls', '--shared', '--json'], '', { ...reader, TESSERA_PASSWORD: password })
      assert.equal(json.code, 0, json.stderr)
      const files = JSON.parse(json.stdout) as { _id: string; role: string }[]
      assert.deepEqual(
        files.map((f) => [f._id, f.role]),
        [[ifcId, 'viewer']],
      )
      const table = await cli(['ls', '--shared'], '', { ...reader, TESSERA_PASSWORD: password })
      assert.match(table.stdout, new RegExp(`^${ifcId}\\s+ready\\s+`, 'm'))
      assert.doesNotMatch(table.stdout, /^folder/m, 'a shared listing has no folders')
      // The reader stars it: ls --favourites lists it (and only for the reader).
      const starred = await cli(['ls', '--favourites', '--json'], '', {
        ...reader,
        TESSERA_PASSWORD: password,
      })
      assert.deepEqual(JSON.parse(starred.stdout), [])
      await withSdkAs('reader', password, (tessera) => tessera.files.star(ifcId))
      const favourites = await cli(['ls', '--favourites'], '', { ...reader, TESSERA_PASSWORD: password })
      assert.equal(favourites.code, 0, favourites.stderr)
      assert.match(favourites.stdout, new RegExp(`^${ifcId}\\s+ready\\s+`, 'm'))
      assert.doesNotMatch(favourites.stdout, /^folder/m)
      assert.equal((await cli(['ls', '--favourites', '--json'])).stdout.trim(), '[]', 'not the admin’s star')
      const both = await cli(['ls', '--shared', '--favourites'], '', {
        ...reader,
        TESSERA_PASSWORD: password,
      })
      assert.notEqual(both.code, 0)
    })

    test('upload --wait of a broken file exits 1 with the reason', async (t) => {
      const dir = tempDir()
      t.after(() => rmSync(dir, { recursive: true, force: true }))
      const broken = path.join(dir, 'broken.ifc')
      await writeFile(broken, 'ISO-10303-21;\nHEADER;\nthis is not a model\n')
      const run = await cli(['upload', '--wait', broken])
      assert.equal(run.code, 1, run.stdout + run.stderr)
      assert.match(run.stdout, /^broken\.ifc: (conversion failed \w+|error): \S.+$/m)
      const notIfc = path.join(dir, 'plain.ifc')
      await writeFile(notIfc, 'plain text')
      const refused = await cli(['upload', notIfc])
      assert.equal(refused.code, 1)
      assert.match(refused.stdout, /plain\.ifc: error: UNSUPPORTED_FORMAT/)
    })

    test('download -o writes the original and the optimized GLB', async (t) => {
      const dir = tempDir()
      t.after(() => rmSync(dir, { recursive: true, force: true }))
      const original = await cli(['download', ifcId, '-o', path.join(dir, 'copy.ifc')])
      assert.equal(original.code, 0, original.stderr)
      assert.deepEqual(await readFile(path.join(dir, 'copy.ifc')), await readFile(IFC))
      const glb = await cli(['download', ifcId, '--optimized', '-o', path.join(dir, 'house.glb')])
      assert.equal(glb.code, 0, glb.stderr)
      assert.equal((await readFile(path.join(dir, 'house.glb'))).subarray(0, 4).toString(), 'glTF')
      const missing = await cli(['download', '000000000000000000000000', '-o', path.join(dir, 'x')])
      assert.equal(missing.code, 1)
      assert.match(missing.stderr, /NOT_FOUND/)
    })

    test('listen --forward-to forwards an attribute write, signed with the printed secret', async () => {
      const { child, output, exited } = spawnCli(
        ['listen', '--events', 'attribute_updated', '--forward-to', `${receiver.url}/listen`],
        env,
      )
      try {
        const secret = await until('the secret', () => /signing secret: (\S+)/.exec(output())?.[1])
        const standard = await until(
          'the whsec_ secret',
          () => /Standard Webhooks library: (whsec_\S+)/.exec(output())?.[1],
        )
        await until('the stream', () => output().includes('Ready: listening'))
        const node = await withSdk(async (tessera) => {
          const id = (await tessera.files.sceneTree(ifcId))[0]?.id ?? ''
          await tessera.attributes.set(ifcId, { [id]: { status: 'approved' } })
          return id
        })
        const request = await until('the forwarded request', () =>
          receiver.received.find((r) => r.path === '/listen'),
        )
        const envelope = await verifyWebhook({ headers: request.headers, body: request.body, secret })
        assert.equal(envelope.event, 'attribute_updated')
        // The webhook-id is the envelope's uuid, as in a webhook delivery.
        assert.equal(request.headers['webhook-id'], envelope.uuid)
        // A Standard Webhooks library takes the printed whsec_ secret as is.
        const headers = Object.fromEntries(
          ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [
            h,
            String(request.headers[h]),
          ]),
        )
        assert.equal(
          (new Webhook(standard).verify(request.body, headers) as { uuid: string }).uuid,
          envelope.uuid,
        )
        assert.equal(envelope.file, ifcId)
        assert.ok(request.body.includes(node))
        await assert.rejects(verifyWebhook({ headers: request.headers, body: request.body, secret: SECRET }))
        await until('the printed answer', () => / -> POST \S+ \[200\] \d+ ms/.test(output()))
        assert.match(output(), new RegExp(`attribute_updated  file ${ifcId}  ${envelope.uuid}`))
      } finally {
        child.kill('SIGINT')
      }
      assert.equal(await exited, 0, output())
    })

    test('trigger reaches a running listen --forward-to: printed, forwarded and signed', async () => {
      const { child, output, exited } = spawnCli(
        ['listen', '--events', 'file_uploaded', '--forward-to', `${receiver.url}/triggered`],
        env,
      )
      try {
        const standard = await until(
          'the whsec_ secret',
          () => /Standard Webhooks library: (whsec_\S+)/.exec(output())?.[1],
        )
        await until('the stream', () => output().includes('Ready: listening'))
        // No webhook for the event: the test event still goes to the stream, and that is no failure.
        const run = await cli(['trigger', 'file_uploaded'])
        assert.equal(run.code, 0, run.stderr)
        const uuid = /sent test event (\S+) of file_uploaded to your event stream/.exec(run.stdout)?.[1]
        assert.ok(uuid, run.stdout)
        assert.match(run.stdout, /no webhook of yours for file_uploaded: no test delivery queued/)
        const request = await until('the forwarded test event', () =>
          receiver.received.find((r) => r.path === '/triggered'),
        )
        assert.equal(request.headers['webhook-id'], uuid)
        const headers = Object.fromEntries(
          ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [
            h,
            String(request.headers[h]),
          ]),
        )
        const envelope = new Webhook(standard).verify(request.body, headers) as Record<string, unknown>
        assert.equal(envelope.uuid, uuid)
        assert.equal(envelope.event, 'file_uploaded')
        await until('the printed event', () => output().includes(uuid))
        assert.match(output(), new RegExp(`file_uploaded  file \\S+  ${uuid}`))
      } finally {
        child.kill('SIGINT')
      }
      assert.equal(await exited, 0, output())
    })

    test('trigger sends a test delivery to the webhook for that event; webhooks ls and deliveries', async () => {
      const hook = await withSdk((tessera) =>
        tessera.webhooks.create({
          event: 'file_optimized',
          url: `${receiver.url}/hook`,
          secretToken: SECRET,
        }),
      )
      const run = await cli(['trigger', 'file_optimized'])
      assert.equal(run.code, 0, run.stderr)
      assert.match(run.stdout, /sent test event \S+ of file_optimized to your event stream/)
      assert.match(run.stdout, /queued test delivery \w+ of file_optimized/)
      const request = await until('the test delivery', () =>
        receiver.received.find((r) => r.path === '/hook' && r.headers['x-service-test'] === '1'),
      )
      assert.equal(
        (await verifyWebhook({ headers: request.headers, body: request.body, secret: SECRET })).event,
        'file_optimized',
      )
      const ls = await cli(['webhooks', 'ls'])
      assert.match(ls.stdout, new RegExp(`^${hook.id}\\s+file_optimized\\s+enabled`, 'm'))
      const deliveries = await cli(['webhooks', 'deliveries', hook.id, '--json'])
      assert.equal(deliveries.code, 0, deliveries.stderr)
      const page = JSON.parse(deliveries.stdout) as { deliveries: { _id: string; test: boolean }[] }
      assert.ok(page.deliveries.some((d) => d.test))
      const bad = await cli(['webhooks', 'deliveries', hook.id, '--status', 'nope'])
      assert.equal(bad.code, 2)
      // A disabled webhook says why.
      await withSdk((tessera) => tessera.webhooks.update(hook.id, { disabled: true }))
      const off = await cli(['webhooks', 'ls'])
      assert.match(off.stdout, new RegExp(`^${hook.id}\\s+file_optimized\\s+disabled:owner\\s`, 'm'))
      await withSdk((tessera) => tessera.webhooks.update(hook.id, { disabled: false }))
    })

    test('link create (password from stdin), show, rotate, revoke', async () => {
      const file = await withSdk((tessera) =>
        tessera.files.upload(new Blob(['solid l\nendsolid l\n']), { name: 'cli-link.stl' }),
      )
      const created = await cli(['link', 'create', file._id, '--password'], 'open sesame\n')
      assert.equal(created.code, 0, created.stderr)
      const url = /^(http\S+\/#\/link\/(\S+))$/m.exec(created.stdout)
      assert.ok(url?.[2], created.stdout)
      assert.match(created.stdout, /no password|password/)
      const shown = await cli(['link', 'show', file._id, '--json'])
      assert.equal(JSON.parse(shown.stdout).hasPassword, true)
      const opened = await fetch(`${server.baseUrl}/links/open`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: url[2], password: 'open sesame' }),
      })
      assert.equal(opened.status, 200)
      const on = await cli(['link', 'live-meetings', file._id, 'on'])
      assert.equal(on.code, 0, on.stderr)
      assert.equal((await withSdk((tessera) => tessera.files.get(file._id))).allowLivePublicMeetings, true)
      assert.equal((await cli(['link', 'live-meetings', file._id, 'maybe'])).code, 2)
      assert.equal((await cli(['link', 'live-meetings', file._id, 'off'])).code, 0)
      assert.equal((await withSdk((tessera) => tessera.files.get(file._id))).allowLivePublicMeetings, false)
      const rotated = await cli(['link', 'rotate', file._id])
      assert.equal(rotated.code, 0, rotated.stderr)
      assert.doesNotMatch(rotated.stdout, new RegExp(url[2]))
      assert.equal((await cli(['link', 'revoke', file._id])).code, 0)
      const gone = await cli(['link', 'show', file._id])
      assert.equal(gone.code, 1)
      assert.match(gone.stderr, /LINK_NOT_FOUND|no link/)
    })

    test('help for every client command; usage errors exit 2', async () => {
      for (const command of [
        'login',
        'upload',
        'ls',
        'download',
        'listen',
        'trigger',
        'webhooks',
        'link',
        'licenses',
      ]) {
        for (const flag of ['--help', '-h']) {
          const run = await cli([command, flag])
          assert.equal(run.code, 0)
          assert.match(run.stdout, new RegExp(`^Usage: tessera ${command}`))
        }
      }
      const bad = await cli(['upload', '--nope', IFC])
      assert.equal(bad.code, 2)
      assert.match(bad.stderr, /Unknown option '--nope'/)
      const events = await cli(['listen', '--events', 'nope'])
      assert.equal(events.code, 1)
      assert.match(events.stderr, /the event stream refused: VALIDATION_FAILED/)
      const elsewhere = await cli(['ls', '--url', 'http://127.0.0.1:9'])
      assert.equal(elsewhere.code, 1)
      assert.match(elsewhere.stderr, /not logged in to http:\/\/127\.0\.0\.1:9/)
      assert.doesNotMatch(elsewhere.stderr, /Usage:/, 'no help text for a missing login')
    })
  })

describe('the SSE reader', () => {
  test('frames with ids, multi-line data, comments and CRLF, split anywhere', async () => {
    const text =
      ': stream open\r\n\r\nid: 1\nevent: a\ndata: {"x":1}\n\n: ping\n\nid: 2\r\nevent: b\r\ndata: l1\r\ndata: l2\r\n\r\n'
    const bytes = new TextEncoder().encode(text)
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 7) controller.enqueue(bytes.subarray(i, i + 7))
        controller.close()
      },
    })
    const frames: SseFrame[] = []
    for await (const frame of sseFrames(body)) frames.push(frame)
    assert.deepEqual(frames, [
      { id: '1', event: 'a', data: '{"x":1}' },
      { id: '2', event: 'b', data: 'l1\nl2' },
    ])
  })
})

describe('upload renderers', () => {
  test('on a terminal: one bar per file, from bytes to conversion', () => {
    const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 100 })
    let text = ''
    stream.on('data', (d: Buffer) => {
      text += d.toString()
    })
    const render = barRenderer(stream)
    render.start('a.ifc', 1000)
    render.bytes('a.ifc', 1000)
    render.converting('a.ifc', 100)
    render.done('a.ifc', 'a.ifc: ready 1 (/a.ifc)')
    render.stop()
    assert.match(text, /a\.ifc \|█+\| 100% done/)
    assert.match(text, /a\.ifc: ready 1/)
  })

  test('in a log: plain lines, throttled', () => {
    const lines: string[] = []
    const render = lineRenderer((l) => lines.push(l))
    render.start('a.ifc', 1000)
    for (let i = 1; i <= 1000; i++) render.bytes('a.ifc', i)
    assert.deepEqual(lines, ['a.ifc: uploading 1000 B', 'a.ifc: uploaded 0%', 'a.ifc: uploaded 100%'])
  })
})

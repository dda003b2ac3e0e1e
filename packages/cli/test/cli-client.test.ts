// The client commands of the `tessera` binary (login, upload, ls, download, props, search, find, listen
// --forward-to, trigger, webhooks) as child processes against a real `tessera serve` on SQLite; and
// the parser of search expressions.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { rmSync } from 'node:fs'
import { readFile, stat, writeFile } from 'node:fs/promises'
import { createServer, type Server as HttpServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { PassThrough } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { type SceneNode, Tessera } from '@tessera/client'
import { verifyWebhook } from '@tessera/client/webhooks'
import { groupGlb } from '@tessera/server/test/support/extras-glb.ts'
import { Webhook } from 'standardwebhooks'
import { type SseFrame, sseFrames } from '../src/listen.ts'
import { parseCondition } from '../src/scene-commands.ts'
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

    test('props and search: named nodes and all, matches over two pages, quoted names, bad expressions', async () => {
      const PANELS = 1002
      const panels = Array.from({ length: PANELS }, (_, i) => ({
        name: `Panel ${i}`,
        extras: {
          fireRating: i % 2 ? 'REI30' : 'REI60',
          width: i / 10,
          'fire rating': `EI ${i}`,
          maker: { name: i === 7 ? 'Bolt Co' : 'ACME' },
        },
      }))
      const { fileId, tree } = await withSdk(async (tessera) => {
        const model = new Blob([groupGlb('Panels', panels, { level: 2 })])
        const uploaded = await tessera.files.upload(model, { name: 'panels.glb', parent: '/props' })
        await tessera.files.waitUntilReady(uploaded._id, { timeoutMs: 120_000 })
        return { fileId: uploaded._id, tree: await tessera.files.sceneTree(uploaded._id) }
      })
      const flatten = (nodes: SceneNode[]): SceneNode[] => nodes.flatMap((n) => [n, ...flatten(n.children)])
      const byName = new Map(flatten(tree).map((n) => [n.name, n.id]))
      const idOf = (name: string) => byName.get(name) ?? assert.fail(`no node ${name}`)
      const sorted = (names: string[]) => names.map(idOf).sort()
      const lines = (ids: string[]) => ids.map((id) => `${id}  ${[...byName].find(([, v]) => v === id)?.[0]}`)

      // props: named nodes in the order given, each group under its node, `name: value`.
      const named = await cli(['props', fileId, idOf('Panel 7'), idOf('Panels')])
      assert.equal(named.code, 0, named.stderr)
      assert.match(
        named.stdout,
        new RegExp(
          `^${idOf('Panel 7')}  Panel 7\n  extras\n(    .+\n)+  Mesh\n(    .+\n)+${idOf('Panels')}  Panels\n  extras\n    level: 2\n$`,
        ),
      )
      for (const line of [
        'fireRating: REI30',
        'width: 0.7',
        'fire rating: EI 7',
        'maker.name: Bolt Co',
        'name: Panel 7 mesh',
      ]) {
        assert.match(named.stdout, new RegExp(`^    ${line}$`, 'm'))
      }
      const all = await cli(['props', fileId, '--json'])
      assert.equal(all.code, 0, all.stderr)
      const json = JSON.parse(all.stdout) as { nodeIdToProperties: Record<string, unknown>; units: unknown }
      assert.equal(Object.keys(json.nodeIdToProperties).length, PANELS + 1)
      assert.deepEqual(json.units, {})
      const unknown = await cli(['props', fileId, 'not-a-node'])
      assert.equal(unknown.code, 1)
      assert.match(unknown.stderr, /UNKNOWN_NODE/)

      // search: every condition holds; IDs with names on stdout, the count on stderr.
      const rated = await cli(['search', fileId, 'extras.fireRating = rei60', 'extras.width >= 99.5'])
      assert.equal(rated.code, 0, rated.stderr)
      const wide = panels.filter((_, i) => i % 2 === 0 && i >= 995).map((p) => p.name)
      assert.equal(rated.stdout, `${lines(sorted(wide)).join('\n')}\n`)
      assert.equal(wide.length, 3)
      assert.match(rated.stderr, /^3 nodes match$/m)
      // Two pages of the server's 1000: every match printed, once.
      const everyPanel = await cli(['search', fileId, 'name ~ panel'])
      assert.equal(everyPanel.code, 0, everyPanel.stderr)
      assert.equal(everyPanel.stdout, `${lines([...byName.values()].sort()).join('\n')}\n`)
      assert.match(everyPanel.stderr, new RegExp(`^${PANELS + 1} nodes match$`, 'm'))
      const makers = await cli(['search', fileId, 'extras.maker.name exists', '--json'])
      assert.deepEqual(JSON.parse(makers.stdout), {
        nodes: sorted(panels.map((p) => p.name)),
        total: PANELS,
      })
      // A property holding a dot and one holding a space, bare and quoted; != and <; a number's =.
      for (const [where, names] of [
        [['extras.maker.name ~ bolt'], ['Panel 7']],
        [['"extras"."fire rating" = "EI 7"'], ['Panel 7']],
        [
          ['extras.fire rating ~ EI 100', 'name != "Panel 1000"'],
          ['Panel 100', 'Panel 1001'],
        ],
        [
          ['extras.fireRating != REI60', 'extras.width < 0.4'],
          ['Panel 1', 'Panel 3'],
        ],
        [['extras.width = 0.7'], ['Panel 7']],
        [['Pset_WallCommon.IsExternal exists'], []],
      ] as const) {
        const run = await cli(['search', fileId, ...where, '--json'])
        assert.equal(run.code, 0, `${where.join(' ')}: ${run.stderr}`)
        assert.deepEqual(JSON.parse(run.stdout).nodes, sorted([...names]), where.join(' '))
      }

      // A bad expression is a usage error: exit 2, what is wrong, then the help; nothing is asked.
      for (const [expression, why] of [
        ['extras.width > wide', /> needs a number, found 'wide'/],
        ['class = IfcDoor', /expected GROUP\.PROPERTY or name before the operator, found 'class'/],
        ['extras.fireRating == REI60', /'==' is no operator/],
        ['extras.fireRating', /expected an operator/],
        ['name > 3', /the node name takes = != or ~/],
      ] as const) {
        const run = await cli(['search', fileId, expression])
        assert.equal(run.code, 2, expression)
        assert.match(
          run.stderr,
          new RegExp(`^tessera: bad expression '${expression.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}': `),
        )
        assert.match(run.stderr, why)
        assert.match(run.stderr, /^Usage: tessera search FILE EXPR/m)
      }
      assert.equal((await cli(['search', fileId])).code, 2)

      // find: the files with matching nodes, ID, count and path per line; the totals on stderr.
      const found = await cli(['find', 'extras.maker.name exists', 'extras.width < 0.15'])
      assert.equal(found.code, 0, found.stderr)
      assert.equal(found.stdout, `${fileId}  2  /props/panels.glb\n`)
      assert.match(found.stderr, /^1 file matches \(2 nodes\)$/m)
      const foundJson = await cli(['find', 'name = "panel 7"', '--json'])
      assert.deepEqual(JSON.parse(foundJson.stdout), {
        files: [{ file: fileId, name: 'panels.glb', parent: '/props', role: 'owner', matches: 1 }],
      })
      const nowhere = await cli(['find', 'Pset_WallCommon.IsExternal exists'])
      assert.deepEqual([nowhere.code, nowhere.stdout], [0, ''])
      assert.match(nowhere.stderr, /^0 files match \(0 nodes\)$/m)
      const noExpression = await cli(['find'])
      assert.equal(noExpression.code, 2)
      assert.match(noExpression.stderr, /^Usage: tessera find EXPR/m)
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
        'props',
        'search',
        'find',
        'bcf',
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

describe('search expressions', () => {
  test('each is one condition: properties split at the first dot, quoted names, typed values', () => {
    const cases: Array<[string, unknown]> = [
      [
        'Pset_WallCommon.FireRating = REI60',
        { group: 'Pset_WallCommon', name: 'FireRating', op: 'eq', value: 'REI60' },
      ],
      ['IFC.class = IfcDoor', { group: 'IFC', name: 'class', op: 'eq', value: 'IfcDoor' }],
      [
        'Qto_WallBaseQuantities.Length > 4.5',
        { group: 'Qto_WallBaseQuantities', name: 'Length', op: 'gt', value: 4.5 },
      ],
      [
        'Pset_WallCommon.FireRating ~ REI',
        { group: 'Pset_WallCommon', name: 'FireRating', op: 'contains', value: 'REI' },
      ],
      ['a.b != 3', { group: 'a', name: 'b', op: 'ne', value: 3 }],
      ['a.b<2', { group: 'a', name: 'b', op: 'lt', value: 2 }],
      ['a.b <= -1e3', { group: 'a', name: 'b', op: 'lte', value: -1000 }],
      ['a.b >= .5', { group: 'a', name: 'b', op: 'gte', value: 0.5 }],
      ['Pset_WallCommon.IsExternal exists', { group: 'Pset_WallCommon', name: 'IsExternal', op: 'exists' }],
      [
        'Pset_WallCommon.IsExternal = true',
        { group: 'Pset_WallCommon', name: 'IsExternal', op: 'eq', value: true },
      ],
      ['a.b != false', { group: 'a', name: 'b', op: 'ne', value: false }],
      ['a.b = "60"', { group: 'a', name: 'b', op: 'eq', value: '60' }],
      ['a.b ~ 0.50', { group: 'a', name: 'b', op: 'contains', value: '0.50' }],
      ['a.b = 0x10', { group: 'a', name: 'b', op: 'eq', value: '0x10' }],
      ['extras.maker.name = ACME Ltd', { group: 'extras', name: 'maker.name', op: 'eq', value: 'ACME Ltd' }],
      ['Pset Name.Fire Rating exists', { group: 'Pset Name', name: 'Fire Rating', op: 'exists' }],
      ['"Pset Name"."Prop name" = x', { group: 'Pset Name', name: 'Prop name', op: 'eq', value: 'x' }],
      ['"Pset.A"."B = \\"q\\"" exists', { group: 'Pset.A', name: 'B = "q"', op: 'exists' }],
      ['name ~ Door', { node: 'name', op: 'contains', value: 'Door' }],
      ['  name!=1e3 ', { node: 'name', op: 'ne', value: '1e3' }],
      ['name = "Panel 1"', { node: 'name', op: 'eq', value: 'Panel 1' }],
      ['name.x = 1', { group: 'name', name: 'x', op: 'eq', value: 1 }],
    ]
    for (const [expression, condition] of cases)
      assert.deepEqual(parseCondition(expression), condition, expression)
  })

  test('a bad one says what is wrong', () => {
    for (const [expression, why] of [
      ['IFC.class', /expected an operator/],
      ['IFC.class == x', /'==' is no operator/],
      ['class = x', /expected GROUP\.PROPERTY or name/],
      ['name > 3', /the node name takes = != or ~/],
      ['name exists', /the node name takes = != or ~/],
      ['a.b < wide', /< needs a number, found 'wide'/],
      ['a.b < "3"', /< needs a number/],
      ['a.b =', /= needs a value/],
      ['a.b exists 1', /expected an operator/],
      ['"a.b = 1', /the quote of the group is not closed/],
      ['a."b = 1', /the quote of the property is not closed/],
      ['a.b = "x', /the quote of the value is not closed/],
      ['a.b = "x" y', /text after the quoted value/],
      ['.b = 1', /the group is empty/],
      ['a. = 1', /the property name after "a\." is empty/],
      ['a.b"c = 1', /quote the whole name/],
      ['"a" = 1', /expected '\.' after the group "a"/],
    ] as const) {
      assert.throws(() => parseCondition(expression), why, expression)
    }
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

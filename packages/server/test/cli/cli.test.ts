// The `tessera` binary end to end: first start, CLI commands, graceful shutdown — on every dialect.
import assert from 'node:assert/strict'
import { request } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { runCli, type Server, startServer } from '../support/process.ts'
import { type ProcessTarget, processTargets } from '../support/targets.ts'

for (const factory of processTargets()) {
  describe(`tessera CLI on ${factory.name}`, () => {
    let target: ProcessTarget
    let env: Record<string, string>
    let server: Server
    before(async () => {
      target = await factory.create()
      env = target.env
      server = await startServer(env)
    })
    after(async () => {
      if (server.child.exitCode === null) server.child.kill('SIGKILL')
      await target.cleanup()
    })

    test('first start prints the admin credentials once, and they log in', async () => {
      const match = /username: (\S+)\n\s+password: (\S+)/.exec(server.output())
      assert.ok(match, server.output())
      const res = await fetch(`${server.baseUrl}/account/login/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: match[1], password: match[2] }),
      })
      assert.equal(res.status, 200)
      // The password appears in the banner only, never in a log line.
      const logLines = server
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
      assert.ok(!logLines.some((l) => l.includes(match[2] ?? '')))
    })

    test('accounts create/list/disable, token sign, keys show, licenses', async () => {
      const created = await runCli(
        ['accounts', 'create', '--email', 'Ada@Example.com', '--username', 'ada'],
        env,
        'a long password\n',
      )
      assert.equal(created.code, 0, created.stderr)
      const account = JSON.parse(created.stdout)
      assert.equal(account.email, 'ada@example.com')
      const duplicate = await runCli(
        ['accounts', 'create', '--email', 'x@example.com', '--username', 'ada'],
        env,
        'a long password\n',
      )
      assert.equal(duplicate.code, 2)
      assert.match(duplicate.stderr, /username is taken/)

      const listed = await runCli(['accounts', 'list'], env)
      assert.match(listed.stdout, new RegExp(`${account.id}\\tada\\tada@example.com\\tuser\\tenabled`))

      // An SSO token minted by the CLI opens a session on the running server.
      const signed = await runCli(['token', 'sign', '--account', 'ada', '--ttl', '5m'], env)
      assert.equal(signed.code, 0, signed.stderr)
      const token = signed.stdout.trim()
      const session = await fetch(`${server.baseUrl}/account/session`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      })
      assert.equal(session.status, 200)

      const licenses = await runCli(['licenses'], env)
      assert.match(licenses.stdout, /^1 of 10 licenses in use/)
      assert.match(licenses.stdout, /ada/)

      const keys = await runCli(['keys', 'show'], env)
      assert.match(keys.stdout, /-----BEGIN PUBLIC KEY-----/)
      assert.doesNotMatch(keys.stdout, /PRIVATE/)
      const jwks = (await (await fetch(`${server.baseUrl}/.well-known/jwks.json`)).json()) as {
        keys: Array<{ kid: string }>
      }
      assert.ok(keys.stdout.includes(jwks.keys[0]?.kid ?? 'missing'))

      const disabled = await runCli(['accounts', 'disable', 'ada'], env)
      assert.equal(disabled.code, 0)
      const refused = await fetch(`${server.baseUrl}/account/session`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      })
      assert.equal(refused.status, 401)
    })

    test('migrate is idempotent; a bad variable stops start-up with a clear message', async () => {
      const migrated = await runCli(['migrate'], env)
      assert.equal(migrated.code, 0, migrated.stderr)
      assert.match(migrated.stdout, /schema is up to date/)
      const bad = await runCli(['serve'], { ...env, TESSERA_SESSION_TTL: 'soon' })
      assert.equal(bad.code, 2)
      assert.match(bad.stderr, /TESSERA_SESSION_TTL: "soon" is not a duration/)
      const badPort = await runCli(['worker', '--metrics-port', 'ninety'], env)
      assert.equal(badPort.code, 2)
      assert.match(badPort.stderr, /--metrics-port must be a port number/)
      // Values an operator gets wrong: each named, without a stack trace.
      const cases: Array<[Record<string, string>, RegExp]> = [
        [{ TESSERA_LICENSES: '0' }, /TESSERA_LICENSES: 0 is outside 1\.\./],
        [{ PORT: '-1' }, /PORT: -1 is outside 0\.\.65535/],
        [
          { TESSERA_JWT_PRIVATE_KEY_FILE: '/nonexistent/key.pem' },
          /TESSERA_JWT_PRIVATE_KEY_FILE: cannot read \/nonexistent\/key\.pem \(ENOENT\)/,
        ],
      ]
      if (env.TESSERA_DATABASE_URL) {
        const missing = new URL(env.TESSERA_DATABASE_URL)
        missing.pathname = '/tessera_no_such_database'
        cases.push([{ TESSERA_DATABASE_URL: missing.toString() }, /does not exist \(3D000\)/])
      }
      for (const [variables, message] of cases) {
        const run = await runCli(['serve'], { ...env, ...variables })
        const expected = variables.TESSERA_DATABASE_URL ? 1 : 2
        assert.equal(run.code, expected, JSON.stringify(variables) + run.stderr)
        assert.match(run.stderr, message)
        assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace')
      }
    })

    test('serve on a port already taken exits 1 at once, naming it; so does --processes 2', async () => {
      const { port } = new URL(server.baseUrl)
      for (const args of [['serve'], ['serve', '--processes', '2']]) {
        const started = Date.now()
        const run = await runCli(args, { ...env, PORT: port })
        assert.equal(run.code, 1, `${args.join(' ')}: ${run.stderr}`)
        assert.match(
          run.stderr,
          new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port} \\(HOST, PORT\\): .*EADDRINUSE`),
        )
        assert.ok(
          Date.now() - started < 30_000,
          `${args.join(' ')} took ${Date.now() - started} ms to give up`,
        )
      }
    })

    test('SIGTERM finishes in-flight requests, then exits 0', async () => {
      // A login whose body is only half sent when SIGTERM arrives is certainly in flight; the
      // server must still read the rest and answer it before exiting.
      const match = /username: (\S+)\n\s+password: (\S+)/.exec(server.output())
      const body = JSON.stringify({ username: match?.[1], password: match?.[2] })
      const url = new URL(`${server.baseUrl}/account/login/`)
      const status = new Promise<number>((resolve, reject) => {
        const req = request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        })
        req.on('response', (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        })
        req.on('error', reject)
        req.write(body.slice(0, 10))
        setTimeout(() => {
          server.child.kill('SIGTERM')
          setTimeout(() => req.end(body.slice(10)), 300)
        }, 300)
      })
      assert.equal(await status, 200)
      assert.equal(await server.exited, 0)
    })
  })
}

// The CLI beside a backend holding the only license: the commands that need only the auth token
// (login, webhooks, trigger, listen, licenses) neither supersede its session nor fail 402; a
// command that needs a session says clearly that none is free, and gives its license back at once.
import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { type AddressInfo, createServer } from 'node:net'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import { NoLicenseAvailableError, Tessera } from '@tessera/client'
import {
  firstAdmin,
  runCli,
  runServerCli,
  type Server,
  spawnCli,
  startServer,
  tempDir,
} from './support/server.ts'

/** A port nothing listens on (one the system just gave out and took back). */
async function closedPort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as AddressInfo
  await new Promise((resolve) => probe.close(resolve))
  return port
}

const SECRET = 'q4Vd-7hYz2KpX9mRw3Ls'
const OTHER = { username: 'other', password: 'another long password' }

describe('tessera beside an SDK session, with a pool of one license', () => {
  const dataDir = tempDir()
  const configDir = tempDir('tessera-cli-config-')
  let server: Server
  let admin: { username: string; password: string }
  let backend: Tessera
  let env: Record<string, string>
  const cli = (args: string[], input = '', extra: Record<string, string> = {}) =>
    runCli(args, { ...env, ...extra }, input)
  const asOther = { TESSERA_USERNAME: OTHER.username, TESSERA_PASSWORD: OTHER.password }

  /** The backend's session still works: its next call answers. */
  async function backendWorks(after: string): Promise<void> {
    await assert.doesNotReject(backend.files.list('/'), `the SDK's session after ${after}`)
  }

  before(async () => {
    const serverEnv = {
      TESSERA_DATA_DIR: dataDir,
      TESSERA_LICENSES: '1',
      TESSERA_WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    }
    server = await startServer(serverEnv)
    admin = firstAdmin(server)
    const args = ['accounts', 'create', '--email', 'other@example.com', '--username', OTHER.username]
    const created = await runServerCli(args, serverEnv, `${OTHER.password}\n`)
    assert.equal(created.code, 0, created.stderr)
    env = { XDG_CONFIG_HOME: configDir, TESSERA_URL: server.baseUrl }
    backend = await Tessera.connect({ url: server.baseUrl, ...admin })
    await backend.webhooks.create({
      event: 'file_optimized',
      url: 'http://127.0.0.1:9/hook',
      secretToken: SECRET,
    })
  })
  after(async () => {
    await backend?.logout().catch(() => undefined)
    if (server?.child.exitCode === null) server.child.kill('SIGKILL')
    rmSync(dataDir, { recursive: true, force: true })
    rmSync(configDir, { recursive: true, force: true })
  })

  test('login, webhooks ls, trigger, listen and licenses leave the SDK session alone', async () => {
    const login = await cli(['login', '--username', admin.username], `${admin.password}\n`)
    assert.equal(login.code, 0, login.stderr)
    await backendWorks('tessera login')
    const hooks = await cli(['webhooks', 'ls'])
    assert.equal(hooks.code, 0, hooks.stderr)
    assert.match(hooks.stdout, /file_optimized/)
    await backendWorks('tessera webhooks ls')
    const trigger = await cli(['trigger', 'file_optimized'])
    assert.equal(trigger.code, 0, trigger.stderr)
    assert.match(trigger.stdout, /queued test delivery/)
    await backendWorks('tessera trigger')
    const licenses = await cli(['licenses'])
    assert.equal(licenses.code, 0, licenses.stderr)
    assert.match(licenses.stdout, /^1 of 1 licenses in use$/m)
    await backendWorks('tessera licenses')

    const { child: listen, output, exited } = spawnCli(['listen'], env)
    const deadline = Date.now() + 30_000
    while (!output().includes('Ready: listening') && Date.now() < deadline && listen.exitCode === null)
      await new Promise((r) => setTimeout(r, 50))
    assert.match(output(), /Ready: listening/)
    await backendWorks('tessera listen')
    listen.kill('SIGINT')
    assert.equal(await exited, 0, output())
  })

  test('ls with the pool full fails with a clear message; its license is free as soon as it ends', async () => {
    const full = await cli(['ls'], '', asOther)
    assert.equal(full.code, 1, full.stderr)
    assert.match(full.stderr, /no license is free on http:\/\/\S+ .*this command needs a session/)
    assert.doesNotMatch(full.stderr, /Usage:|\n\s+at /)
    await backendWorks('a refused tessera ls')

    await backend.logout()
    const ls = await cli(['ls'], '', asOther)
    assert.equal(ls.code, 0, ls.stderr)
    assert.doesNotMatch(ls.stderr, /took over/, 'other had no session to take over')
    // At once: not after the deletion delay (5 minutes) that DELETE /account/session leaves.
    backend = await Tessera.connect({ url: server.baseUrl, ...admin })
    await backendWorks('tessera ls ended')
  })

  test('a session command that takes over your other session says so', async () => {
    const ls = await cli(['ls'])
    assert.equal(ls.code, 0, ls.stderr)
    assert.match(ls.stderr, /took over your other session/)
    await assert.rejects(backend.files.list('/'), (error: Error) => /SESSION_SUPERSEDED/.test(error.message))
    backend.stopKeepAlive()
    backend = await Tessera.connect({ url: server.baseUrl, ...admin })
    // --keep-session leaves the session open: its license stays held.
    const kept = await cli(['ls', '--keep-session'], '', asOther)
    assert.equal(kept.code, 1, 'the pool is full: the backend holds the license')
    await backend.logout()
    const keep = await cli(['ls', '--keep-session'], '', asOther)
    assert.equal(keep.code, 0, keep.stderr)
    assert.match(keep.stderr, /the session stays open \(--keep-session\)/)
    await assert.rejects(
      Tessera.connect({ url: server.baseUrl, ...admin }),
      (error) => error instanceof NoLicenseAvailableError,
    )
  })

  test('niceties: --version, help, a network error naming its cause, a stale token, accounts --help', async () => {
    const version = await cli(['--version'])
    assert.equal(version.code, 0)
    assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/)
    const help = await cli(['--help'])
    assert.equal(help.code, 0)
    assert.match(help.stdout, /Client commands/)
    assert.match(help.stdout, /Server commands \(installed here: run by tessera-server\)/)
    const accounts = await cli(['accounts', '--help'])
    assert.equal(accounts.code, 0, accounts.stderr)
    assert.match(accounts.stdout, /^Usage: tessera-server accounts <action>/)
    assert.doesNotMatch(accounts.stdout, /TESSERA_DATA_DIR/, 'its own help, not the server variables')

    const port = await closedPort()
    const down = await cli(['ls', '--url', `http://127.0.0.1:${port}`], '', asOther)
    assert.equal(down.code, 1)
    assert.equal(
      down.stderr,
      `tessera: cannot reach http://127.0.0.1:${port}: ECONNREFUSED 127.0.0.1:${port} (NETWORK_ERROR)\n`,
    )

    const staleDir = tempDir('tessera-cli-stale-')
    try {
      await mkdir(path.join(staleDir, 'tessera'), { recursive: true })
      const stored = {
        instances: { [server.baseUrl]: { username: 'x', authToken: 'not.a.token', savedAt: '' } },
      }
      await writeFile(path.join(staleDir, 'tessera', 'credentials.json'), JSON.stringify(stored))
      const stale = await cli(['webhooks', 'ls'], '', { XDG_CONFIG_HOME: staleDir })
      assert.equal(stale.code, 1)
      assert.match(stale.stderr, /AUTH_TOKEN_INVALID/)
      assert.match(stale.stderr, /run 'tessera login --username U'/)
    } finally {
      rmSync(staleDir, { recursive: true, force: true })
    }
  })
})

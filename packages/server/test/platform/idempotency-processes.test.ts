// One Idempotency-Key sent to two `tessera-server serve` processes on one database at once: one
// record, every success the same answer, later repeats replayed by either process. The guarantee
// rests on the database (the key's primary key), not on one process's memory.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { cliAccount, type Server, startServer } from '../support/process.ts'
import { type ProcessTarget, processTargets } from '../support/targets.ts'

const SECRET = 'k7Qx-9vR2mWp4ZtL8bNc'

for (const factory of processTargets()) {
  describe(`Idempotency-Key across two processes on ${factory.name}`, () => {
    let target: ProcessTarget
    const servers: Server[] = []
    let authToken = ''

    before(async () => {
      target = await factory.create()
      const env = { ...target.env, TESSERA_WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }
      // The first start migrates; the second joins the migrated database.
      servers.push(await startServer(env, ['--no-workers']))
      servers.push(await startServer(env, ['--no-workers']))
      ;({ authToken } = await cliAccount(target.env, 'idem'))
    })

    after(async () => {
      for (const server of servers) {
        server.child.kill('SIGTERM')
        await server.exited
      }
      await target.cleanup()
    })

    const create = (server: Server, key: string) =>
      fetch(`${server.baseUrl}/webhook/`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${authToken}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify({ event: 'file_uploaded', url: 'http://127.0.0.1:9/hook', secretToken: SECRET }),
      })

    test('concurrent creates with one key on both processes make one webhook; repeats replay it', async () => {
      const [one, two] = servers as [Server, Server]
      const key = `two-processes-${factory.name}`
      const answers = await Promise.all([one, two, one, two, one, two].map((server) => create(server, key)))
      const ids = new Set<string>()
      for (const answer of answers) {
        const body = (await answer.json()) as { data?: { id: string }; code?: string }
        if (answer.status === 200) ids.add(String(body.data?.id))
        // The one still running elsewhere: the caller is told to come back (Retry-After), not served twice.
        else assert.deepEqual([answer.status, body.code], [409, 'IDEMPOTENCY_KEY_IN_USE'])
      }
      assert.equal(ids.size, 1, `one webhook id in every success: ${[...ids].join(', ')}`)
      for (const server of servers) {
        const again = await create(server, key)
        assert.equal(again.status, 200)
        assert.equal(again.headers.get('idempotent-replayed'), 'true')
        assert.equal(((await again.json()) as { data: { id: string } }).data.id, [...ids][0])
      }
      const listed = await fetch(`${one.baseUrl}/webhook/`, {
        headers: { authorization: `Bearer ${authToken}` },
      })
      assert.equal(((await listed.json()) as { data: unknown[] }).data.length, 1)
    })
  })
}

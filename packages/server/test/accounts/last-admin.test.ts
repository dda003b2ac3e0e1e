// The last-admin rule under concurrency: two administrators disabling each other at the same time,
// through two app instances (two processes' connections) on one database, never leave no enabled
// administrator; the loser gets 409 LAST_ADMIN.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app/app.ts'
import { createAccount } from '../../src/modules/accounts/index.ts'
import { setAccountDisabled } from '../../src/modules/sessions/index.ts'
import { type Db, openDatabase } from '../../src/platform/db/index.ts'
import { openSession, PASSWORD } from '../support/api.ts'
import { dialects, startApp, type TestApp, testKeys } from '../support/harness.ts'

const ROUNDS = 15

for (const dialect of dialects()) {
  describe(`last enabled admin on ${dialect.name}`, () => {
    let t: TestApp
    let db2: Db
    let other: FastifyInstance
    before(async () => {
      t = await startApp(dialect, { licenses: 1000 })
      const schema = (t.db.description.match(/schema (\w+)/) ?? [])[1]
      db2 = await openDatabase({
        databaseUrl: t.config.databaseUrl,
        dataDir: t.config.dataDir,
        pgSchema: schema,
      })
      other = await buildApp(t.config, {
        db: db2,
        keys: await testKeys(),
        conversions: false,
        workers: false,
      })
      await other.ready()
    })
    after(async () => {
      await other.close()
      await db2.close()
      await t.close()
    })

    /** A new admin with both tokens (minted directly: the login throttle is not under test here). */
    async function admin(name: string) {
      const account = await createAccount(t.app.ctx, {
        email: `${name}@example.com`,
        username: name,
        password: PASSWORD,
        admin: true,
      })
      const authToken = await t.app.ctx.tokens.signAuthToken(account.id)
      const sessionToken = await openSession(t.app, authToken)
      return {
        id: account.id,
        headers: { authorization: `Bearer ${authToken}`, 'x-service-session': sessionToken },
      }
    }

    const disable = (app: FastifyInstance, headers: Record<string, string>, id: string) =>
      app.inject({ method: 'PATCH', url: `/admin/accounts/${id}`, headers, payload: { disabled: true } })

    test('two admins disabling each other at once: one enabled admin remains, the loser gets 409', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        // Only this round's two admins are admins: the rule counts every enabled admin.
        await t.db.kysely.updateTable('accounts').set({ is_admin: 0 }).execute()
        const a = await admin(`a${round}x${process.pid}`)
        const b = await admin(`b${round}x${process.pid}`)
        const [byA, byB] = await Promise.all([
          disable(t.app, a.headers, b.id),
          disable(other, b.headers, a.id),
        ])
        const enabled = await t.db.kysely
          .selectFrom('accounts')
          .select('id')
          .where('is_admin', '=', 1)
          .where('disabled', '=', 0)
          .execute()
        assert.equal(enabled.length, 1, `round ${round}: ${byA.statusCode} ${byB.statusCode}`)
        const statuses = [byA.statusCode, byB.statusCode].sort()
        // The loser's auth may already be refused (its account was disabled before it authenticated),
        // else the rule refuses it.
        assert.equal(statuses[0], 200, `round ${round}: ${byA.body} ${byB.body}`)
        const loser = byA.statusCode === 200 ? byB : byA
        if (loser.statusCode !== 401) {
          assert.equal(loser.statusCode, 409, loser.body)
          assert.equal(loser.json().code, 'LAST_ADMIN')
        }
      }
    })

    test('the second of the two, serialized: 409 LAST_ADMIN, and nothing changes', async () => {
      await t.db.kysely.updateTable('accounts').set({ is_admin: 0 }).execute()
      const a = await admin(`c${process.pid}`)
      const b = await admin(`d${process.pid}`)
      assert.equal((await disable(t.app, a.headers, b.id)).statusCode, 200)
      // b's request, had it passed authentication just before b was disabled.
      await assert.rejects(setAccountDisabled(other.ctx, a.id, true, { byAdmin: b.id }), {
        code: 'LAST_ADMIN',
      })
      const row = await t.db.kysely
        .selectFrom('accounts')
        .select('disabled')
        .where('id', '=', a.id)
        .executeTakeFirst()
      assert.equal(row?.disabled, 0)
    })
  })
}

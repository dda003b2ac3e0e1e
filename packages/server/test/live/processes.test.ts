// Live sessions across server processes (docs/live.md "Across server processes"): two apps on one
// database, each with its own hub (and on PostgreSQL its own pool and LISTEN connection, as two
// processes have): participants of one see those of the other, cameras and leaves cross over, a
// change committed through one reaches participants of the other; on PostgreSQL a process that stops
// talking (killed) has its participants leave everywhere once its heartbeats are missed.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { buildApp } from '../../src/app/app.ts'
import { openDatabase } from '../../src/platform/db/index.ts'
import { team } from '../support/file-rows.ts'
import { dialects, testConfig, testKeys } from '../support/harness.ts'
import { joinLive } from '../support/live.ts'

for (const dialect of dialects()) {
  describe(`live sessions across processes on ${dialect.name}`, () => {
    test('two apps on one database see each other’s participants, cameras, leaves and changes', async () => {
      const opened = await dialect.open()
      const config = testConfig(opened.dataDir, { databaseUrl: opened.databaseUrl, licenses: 100 })
      const keys = await testKeys()
      const first = await buildApp(config, { db: opened.db, keys, workers: false })
      // SQLite: one process holds the database, so the second app shares its handle (and relay).
      const db2 = opened.databaseUrl
        ? await openDatabase({ ...opened, pgSchema: opened.pgSchema })
        : opened.db
      const second = await buildApp(config, { db: db2, keys, workers: false })
      const apps: FastifyInstance[] = [second, first]
      try {
        await Promise.all([first.ready(), second.ready()])
        const baseA = await first.listen({ port: 0, host: '127.0.0.1' })
        const baseB = await second.listen({ port: 0, host: '127.0.0.1' })
        const m = await team(first)
        const a = await joinLive(baseA, m.fileId, m.owner.headers)
        a.client.send({ type: 'camera', position: [1, 1, 1], target: [0, 0, 0] })
        await new Promise((resolve) => setTimeout(resolve, 100))
        const b = await joinLive(baseB, m.fileId, m.viewer.headers)
        const seen = b.welcome.participants as Array<Record<string, unknown>>
        assert.deepEqual(
          seen.map((p) => p.participantId).sort(),
          [a.you, b.you].sort(),
          'the welcome on the second app lists the first app’s participant',
        )
        assert.deepEqual(seen.find((p) => p.participantId === a.you)?.camera, {
          position: [1, 1, 1],
          target: [0, 0, 0],
        })
        const joined = await a.client.waitFor((x) => x.type === 'joined')
        assert.equal((joined.participant as Record<string, unknown>).participantId, b.you)
        b.client.send({ type: 'camera', position: [5, 6, 7], target: [0, 0, 0] })
        const camera = await a.client.waitFor((x) => x.type === 'camera')
        assert.deepEqual(camera.position, [5, 6, 7])
        // A change committed through the second app reaches the participant on the first.
        const res = await second.inject({
          method: 'POST',
          url: '/annotation/create/',
          headers: m.editor.headers,
          payload: { file: m.fileId, name: 'Across' },
        })
        assert.equal(res.statusCode, 200, res.body)
        assert.equal((await a.client.waitFor((x) => x.type === 'changed')).kind, 'annotation')
        b.client.close()
        assert.deepEqual(await a.client.waitFor((x) => x.type === 'left'), {
          type: 'left',
          participantId: b.you,
          reason: 'left',
        })
        // The second app shuts down: its participants leave at once (not after the expiry).
        const c = await joinLive(baseB, m.fileId, m.editor.headers)
        await a.client.waitFor(
          (x) => x.type === 'joined' && (x.participant as { participantId: string }).participantId === c.you,
        )
        await second.close()
        apps.shift()
        const left = await a.client.waitFor((x) => x.type === 'left' && x.participantId === c.you)
        assert.equal(left.reason, 'closed')
        assert.equal((await c.client.closed).code, 1001)
        a.client.close()
      } finally {
        for (const app of apps) await app.close()
        if (db2 !== opened.db) await db2.close()
        await opened.drop()
      }
    })

    if (dialect.name !== 'postgres') return
    test('a process that stops talking: its participants leave everywhere within a few seconds', async () => {
      const opened = await dialect.open()
      const config = testConfig(opened.dataDir, { databaseUrl: opened.databaseUrl, licenses: 100 })
      const app = await buildApp(config, { db: opened.db, keys: await testKeys(), workers: false })
      try {
        const base = await app.listen({ port: 0, host: '127.0.0.1' })
        const m = await team(app)
        const a = await joinLive(base, m.fileId, m.owner.headers)
        // What a process killed right after it announced a participant leaves behind: one join, no heartbeats.
        const ghost = { id: 'a'.repeat(32), name: 'ghost', guest: false, color: '#e6194b', who: 'nobody' }
        const payload = JSON.stringify([{ o: 'j', h: 'deadbeefdeadbeef', f: m.fileId, p: ghost }])
        await sql`select pg_notify('tessera_live', ${payload})`.execute(opened.db.kysely)
        const joined = await a.client.waitFor((x) => x.type === 'joined')
        assert.equal((joined.participant as Record<string, unknown>).participantId, ghost.id)
        const started = performance.now()
        const left = await a.client.waitFor((x) => x.type === 'left', 8000)
        const took = performance.now() - started
        assert.deepEqual(left, { type: 'left', participantId: ghost.id, reason: 'expired' })
        assert.ok(took > 2500 && took < 6000, `left after ${took} ms`)
        a.client.close()
      } finally {
        await app.close()
        await opened.drop()
      }
    })
  })
}

// Public live meetings (docs/api.md "Files", docs/live.md "Connecting"), every dialect: the owner
// turns them on and off (PUT /file/:id/live-meetings), nobody else may; turning them off closes the
// file's guests within 1 s on every process (two apps on one database here), long before the
// re-check net (set to a minute); deleting the file ends its live sessions as fast.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app/app.ts'
import { openDatabase } from '../../src/platform/db/index.ts'
import { type Team, team } from '../support/file-rows.ts'
import { dialects, startApp, type TestApp, testConfig, testKeys } from '../support/harness.ts'
import { joinLive, liveSocket } from '../support/live.ts'

type FileAnswer = { success: true; file: { allowLivePublicMeetings: boolean; __v: number; updated: string } }

const setMeetings = (app: FastifyInstance, fileId: string, headers: Record<string, string>, allow: unknown) =>
  app.inject({ method: 'PUT', url: `/file/${fileId}/live-meetings`, headers, payload: { allow } })

/** A new link of the file and a link session of it. */
async function linkSessionOf(app: FastifyInstance, m: Team): Promise<string> {
  await app.inject({ method: 'DELETE', url: `/file/${m.fileId}/link`, headers: m.owner.headers })
  const created = await app.inject({
    method: 'POST',
    url: `/file/${m.fileId}/link`,
    headers: m.owner.headers,
    payload: {},
  })
  assert.equal(created.statusCode, 200, created.body)
  const token = (created.json() as { token: string }).token
  const opened = await app.inject({ method: 'POST', url: '/links/open', payload: { token } })
  assert.equal(opened.statusCode, 200, opened.body)
  return (opened.json() as { linkSession: string }).linkSession
}

for (const dialect of dialects()) {
  describe(`public live meetings on ${dialect.name}`, () => {
    let t: TestApp
    let base: string
    before(async () => {
      t = await startApp(dialect, { licenses: 1000, liveRecheckMs: 60_000 })
      base = await t.app.listen({ port: 0, host: '127.0.0.1' })
    })
    after(() => t.close())

    test('the owner turns them on and off; editors and viewers 403, others 404, link sessions 403', async () => {
      const m = await team(t.app)
      const before = (await t.app.inject({ url: `/file/${m.fileId}`, headers: m.owner.headers })).json()
      assert.equal(before.file.allowLivePublicMeetings, false)
      const on = await setMeetings(t.app, m.fileId, m.owner.headers, true)
      assert.equal(on.statusCode, 200, on.body)
      const onFile = (on.json() as FileAnswer).file
      assert.equal(onFile.allowLivePublicMeetings, true)
      assert.equal(onFile.__v, before.file.__v + 1)
      const again = (await setMeetings(t.app, m.fileId, m.owner.headers, true)).json() as FileAnswer
      assert.equal(again.file.__v, onFile.__v, 'setting what is set changes nothing')
      const read = (await t.app.inject({ url: `/file/${m.fileId}`, headers: m.viewer.headers })).json()
      assert.equal(read.file.allowLivePublicMeetings, true)
      for (const [who, status] of [
        [m.editor, 403],
        [m.viewer, 403],
        [m.stranger, 404],
      ] as const) {
        const res = await setMeetings(t.app, m.fileId, who.headers, false)
        assert.equal(res.statusCode, status, res.body)
      }
      assert.equal((await setMeetings(t.app, m.fileId, m.owner.headers, 'yes')).statusCode, 400)
      const jwt = await linkSessionOf(t.app, m)
      const guest = await setMeetings(t.app, m.fileId, { 'x-link-session': jwt }, false)
      assert.equal(guest.statusCode, 403, guest.body)
      const now = (await t.app.inject({ url: `/file/${m.fileId}`, headers: m.owner.headers })).json()
      const off = (await setMeetings(t.app, m.fileId, m.owner.headers, false)).json() as FileAnswer
      assert.equal(off.file.allowLivePublicMeetings, false)
      assert.equal(off.file.__v, now.file.__v + 1)
    })

    test('turned off: a guest is closed within 1 s, accounts stay; none joins while off; on again, one does', async () => {
      const m = await team(t.app)
      const jwt = await linkSessionOf(t.app, m)
      assert.equal((await setMeetings(t.app, m.fileId, m.owner.headers, true)).statusCode, 200)
      const owner = await joinLive(base, m.fileId, m.owner.headers)
      const guest = await joinLive(base, m.fileId, {}, { linkSession: jwt, name: 'Ada' })
      await owner.client.waitFor((x) => x.type === 'joined')
      const started = performance.now()
      assert.equal((await setMeetings(t.app, m.fileId, m.owner.headers, false)).statusCode, 200)
      const closed = await guest.client.waitFor((x) => x.type === 'closed')
      assert.equal(closed.code, 'LIVE_GUESTS_NOT_ALLOWED')
      assert.equal((await guest.client.closed).code, 4403)
      const took = performance.now() - started
      assert.ok(took < 1000, `closed after ${took} ms`)
      const left = await owner.client.waitFor((x) => x.type === 'left')
      assert.equal(left.participantId, guest.you)
      const refused = await liveSocket(base, m.fileId)
      refused.send({ type: 'hello', linkSession: jwt, name: 'Ada' })
      assert.equal((await refused.waitFor((x) => x.type === 'closed')).code, 'LIVE_GUESTS_NOT_ALLOWED')
      assert.equal((await setMeetings(t.app, m.fileId, m.owner.headers, true)).statusCode, 200)
      const back = await joinLive(base, m.fileId, {}, { linkSession: jwt, name: 'Ada' })
      assert.ok(back.you)
      // The owner's connection was never closed.
      owner.client.send({ type: 'camera', position: [1, 2, 3], target: [0, 0, 0] })
      await back.client.waitFor((x) => x.type === 'camera')
      back.client.close()
      owner.client.close()
    })

    test('deleting the file closes its live connections within 1 s', async () => {
      const m = await team(t.app)
      const viewer = await joinLive(base, m.fileId, m.viewer.headers)
      const started = performance.now()
      const res = await t.app.inject({ method: 'DELETE', url: `/file/${m.fileId}`, headers: m.owner.headers })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal((await viewer.client.waitFor((x) => x.type === 'closed')).code, 'NOT_FOUND')
      const took = performance.now() - started
      assert.ok(took < 1000, `closed after ${took} ms`)
    })

    test('turned off through one process: a guest on another is closed within 1 s', async () => {
      const opened = await dialect.open()
      const config = testConfig(opened.dataDir, {
        databaseUrl: opened.databaseUrl,
        licenses: 100,
        liveRecheckMs: 60_000,
      })
      const keys = await testKeys()
      const first = await buildApp(config, { db: opened.db, keys, workers: false })
      // SQLite: one process holds the database, so the second app shares its handle (and relay).
      const db2 = opened.databaseUrl
        ? await openDatabase({ ...opened, pgSchema: opened.pgSchema })
        : opened.db
      const second = await buildApp(config, { db: db2, keys, workers: false })
      try {
        await Promise.all([first.ready(), second.ready()])
        const baseB = await second.listen({ port: 0, host: '127.0.0.1' })
        const m = await team(first)
        const jwt = await linkSessionOf(first, m)
        assert.equal((await setMeetings(first, m.fileId, m.owner.headers, true)).statusCode, 200)
        const guest = await joinLive(baseB, m.fileId, {}, { linkSession: jwt, name: 'Ada' })
        const started = performance.now()
        assert.equal((await setMeetings(first, m.fileId, m.owner.headers, false)).statusCode, 200)
        assert.equal((await guest.client.waitFor((x) => x.type === 'closed')).code, 'LIVE_GUESTS_NOT_ALLOWED')
        const took = performance.now() - started
        assert.ok(took < 1000, `closed after ${took} ms`)
      } finally {
        await second.close()
        await first.close()
        if (db2 !== opened.db) await db2.close()
        await opened.drop()
      }
    })
  })
}

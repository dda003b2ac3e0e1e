// Live sessions over real WebSockets on loopback, every dialect (docs/live.md): joining and presence,
// camera and selection relay, follow, resume, the file's settings and change notices.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { insertFileRow, shareFileRow, type Team, team } from '../support/file-rows.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { joinLive, liveSocket } from '../support/live.ts'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

for (const dialect of dialects()) {
  describe(`live sessions on ${dialect.name}`, () => {
    let t: TestApp
    let base: string
    let m: Team
    before(async () => {
      t = await startApp(dialect, { licenses: 1000 })
      base = await t.app.listen({ port: 0, host: '127.0.0.1' })
      m = await team(t.app)
    })
    after(async () => {
      await t.close()
    })

    /** A fresh file of the team's owner, shared with its editor and viewer. */
    const freshFile = async () => {
      const fileId = await insertFileRow(t.app, m.owner.account.id)
      await shareFileRow(t.app, fileId, m.editor.account.id, 'editor')
      await shareFileRow(t.app, fileId, m.viewer.account.id, 'viewer')
      return fileId
    }

    test('join, presence, camera and selection relay, leave', async () => {
      const a = await joinLive(base, m.fileId, m.owner.headers)
      assert.deepEqual(a.welcome.settings, { avatars: true, selection: true })
      const participants = a.welcome.participants as Array<Record<string, unknown>>
      assert.equal(participants.length, 1)
      assert.equal(participants[0]?.name, m.owner.account.username)
      assert.equal(participants[0]?.email, m.owner.account.email)
      assert.match(String(participants[0]?.color), /^#[0-9a-f]{6}$/)
      const b = await joinLive(base, m.fileId, m.viewer.headers)
      assert.equal((b.welcome.participants as unknown[]).length, 2)
      const joined = await a.client.waitFor((x) => x.type === 'joined')
      assert.equal((joined.participant as Record<string, unknown>).participantId, b.you)
      a.client.send({ type: 'camera', position: [1, 2, 3], target: [0, 0, 0], fov: 50 })
      const camera = await b.client.waitFor((x) => x.type === 'camera')
      assert.deepEqual(camera, {
        type: 'camera',
        participantId: a.you,
        position: [1, 2, 3],
        target: [0, 0, 0],
        fov: 50,
      })
      b.client.send({ type: 'selection', ids: ['n1', 'n2'] })
      const selection = await a.client.waitFor((x) => x.type === 'selection')
      assert.deepEqual(selection, { type: 'selection', participantId: b.you, ids: ['n1', 'n2'] })
      // A newcomer's welcome carries the others' last camera and selection.
      const c = await joinLive(base, m.fileId, m.editor.headers)
      const seen = c.welcome.participants as Array<Record<string, unknown>>
      assert.deepEqual(seen.find((p) => p.participantId === a.you)?.camera, {
        position: [1, 2, 3],
        target: [0, 0, 0],
        fov: 50,
      })
      assert.deepEqual(seen.find((p) => p.participantId === b.you)?.selection, ['n1', 'n2'])
      // Three people, three colours; another tab of an account shows that account's colour.
      assert.equal(new Set(seen.map((p) => p.color)).size, 3, JSON.stringify(seen))
      const again = await joinLive(base, m.fileId, m.owner.headers)
      const mine = (again.welcome.participants as Array<Record<string, unknown>>).filter(
        (p) => p.name === m.owner.account.username,
      )
      assert.equal(new Set(mine.map((p) => p.color)).size, 1)
      again.client.close()
      await a.client.waitFor((x) => x.type === 'left' && x.participantId === again.you)
      b.client.close()
      const left = await a.client.waitFor((x) => x.type === 'left' && x.participantId === b.you)
      assert.deepEqual(left, { type: 'left', participantId: b.you, reason: 'left' })
      a.client.close()
      c.client.close()
    })

    test('follow is told to everyone and cleared when the followed one leaves; a resume keeps the id', async () => {
      const fileId = await freshFile()
      const a = await joinLive(base, fileId, m.owner.headers)
      const b = await joinLive(base, fileId, m.viewer.headers)
      b.client.send({ type: 'follow', participantId: a.you })
      const follow = await a.client.waitFor((x) => x.type === 'follow')
      assert.deepEqual(follow, { type: 'follow', participantId: b.you, following: a.you })
      b.client.send({ type: 'follow', participantId: b.you })
      assert.equal((await b.client.waitFor((x) => x.type === 'error')).code, 'NOT_ALLOWED')
      // a drops and comes back with resume: same id, b still follows it, b sees `joined` again.
      const before = b.client.messages.length
      a.client.ws.terminate()
      const again = await joinLive(base, fileId, m.owner.headers, { resume: a.you })
      assert.equal(again.you, a.you)
      const rejoined = await b.client.waitFor((x) => x.type === 'joined' || x.type === 'left', 5000, before)
      // The old socket's close may be seen first (left) when the server noticed it before the resume.
      assert.ok(rejoined.type === 'joined' || rejoined.type === 'left')
      again.client.close()
      const cleared = await b.client.waitFor((x) => x.type === 'follow' && x.following === null, 5000, before)
      assert.equal(cleared.participantId, b.you)
      // A resume of an id held by another account gets a fresh id.
      const thief = await joinLive(base, fileId, m.editor.headers, { resume: b.you })
      assert.notEqual(thief.you, b.you)
      thief.client.close()
      b.client.close()
    })

    test('a changed notice after an annotation update; the start configuration decides what is shared', async () => {
      const fileId = await freshFile()
      const a = await joinLive(base, fileId, m.viewer.headers)
      const created = await t.app.inject({
        method: 'POST',
        url: '/annotation/create/',
        headers: m.editor.headers,
        payload: { file: fileId, name: 'A note' },
      })
      assert.equal(created.statusCode, 200, created.body)
      const annotationId = (created.json() as { annotation: { _id: string } }).annotation._id
      assert.deepEqual(await a.client.waitFor((x) => x.type === 'changed'), {
        type: 'changed',
        kind: 'annotation',
        id: annotationId,
      })
      const from = a.client.messages.length
      const updated = await t.app.inject({
        method: 'POST',
        url: '/annotation/update/',
        headers: m.editor.headers,
        payload: { _id: annotationId, name: 'Renamed' },
      })
      assert.equal(updated.statusCode, 200, updated.body)
      const notice = await a.client.waitFor((x) => x.type === 'changed', 5000, from)
      assert.deepEqual(notice, { type: 'changed', kind: 'annotation', id: annotationId })
      const attributesFrom = a.client.messages.length
      const attributes = await t.app.inject({
        method: 'POST',
        url: '/scene/attributes',
        headers: m.editor.headers,
        payload: { file: fileId, nodeIdToAttributes: { n1: { status: 'approved' } } },
      })
      assert.equal(attributes.statusCode, 200, attributes.body)
      assert.deepEqual(await a.client.waitFor((x) => x.type === 'changed', 5000, attributesFrom), {
        type: 'changed',
        kind: 'attributes',
        id: fileId,
      })

      // A start configuration with avatars off: `settings` goes out, cameras are dropped.
      const b = await joinLive(base, fileId, m.owner.headers)
      const config = await t.app.inject({
        method: 'POST',
        url: '/file/configuration/',
        headers: m.owner.headers,
        payload: {
          file: fileId,
          name: 'Start',
          activeOnStart: true,
          collaborativeAvatarsEnabled: false,
          collaborativeSelectionEnabled: true,
        },
      })
      assert.equal(config.statusCode, 200, config.body)
      const settings = await a.client.waitFor((x) => x.type === 'settings')
      assert.deepEqual(settings, { type: 'settings', avatars: false, selection: true })
      await b.client.waitFor((x) => x.type === 'settings')
      const mark = a.client.messages.length
      b.client.send({ type: 'camera', position: [9, 9, 9], target: [0, 0, 0] })
      b.client.send({ type: 'selection', ids: ['x'] })
      await a.client.waitFor((x) => x.type === 'selection', 5000, mark)
      await sleep(100)
      assert.equal(a.client.messages.slice(mark).filter((x) => x.type === 'camera').length, 0)
      const c = await joinLive(base, fileId, m.editor.headers)
      assert.deepEqual(c.welcome.settings, { avatars: false, selection: true })
      for (const x of [a, b, c]) x.client.close()
    })

    test('an unknown file or a stranger is refused before the upgrade', async () => {
      await assert.rejects(
        liveSocket(base, m.fileId, m.stranger.headers),
        (err: { status?: number }) => err.status === 404,
      )
      await assert.rejects(
        liveSocket(base, 'f'.repeat(24), m.owner.headers),
        (err: { status?: number }) => err.status === 404,
      )
    })
  })
}

// Locked views: who may lock (those who may write the configuration), the 409 CONFIGURATION_LOCKED
// naming the holder for others' updates and deletes, the holder's own writes, unlock by the holder
// and by the file's owner (anyone else 403), `lockedBy` ignored by the ordinary update, two lockers
// at once (exactly one wins), and configuration_updated committed with the lock or not at all.
// Every dialect.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { problemOf, signedIn } from '../support/api.ts'
import { shareFileRow, type Team, team } from '../support/file-rows.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

type Headers = Record<string, string>
interface Configuration {
  _id: string
  __v: number
  lockedBy: string | null
  name: string
  lastModificationAuthor: string | null
}

for (const dialect of dialects()) {
  describe(`locked views on ${dialect.name}`, () => {
    let t: TestApp
    let m: Team
    before(async () => {
      t = await startApp(dialect, { licenses: 1000 })
      m = await team(t.app)
    })
    after(async () => t.close())

    const post = (headers: Headers, url: string, payload: object) =>
      t.app.inject({ method: 'POST', url, headers, payload })
    const lock = (headers: Headers, _id: string) => post(headers, '/file/configuration/lock/', { _id })
    const unlock = (headers: Headers, _id: string) => post(headers, '/file/configuration/unlock/', { _id })
    const save = (headers: Headers, body: object) => post(headers, '/file/configuration/', body)
    const remove = (headers: Headers, _id: string) =>
      t.app.inject({ method: 'DELETE', url: `/file/configuration/?_id=${_id}`, headers })
    async function create(headers: Headers = m.owner.headers): Promise<Configuration> {
      const res = await save(headers, { file: m.fileId, name: 'View' })
      assert.equal(res.statusCode, 200, res.body)
      return res.json().configuration
    }
    const eventsOf = async (id: string) => {
      const rows = await t.db.kysely
        .selectFrom('events')
        .select(['event', 'data'])
        .where('file_id', '=', m.fileId)
        .orderBy('id')
        .execute()
      return rows
        .map((row) => ({
          event: row.event,
          data: typeof row.data === 'string' ? JSON.parse(row.data) : row.data,
        }))
        .filter(({ data }) => (data.new?._id ?? data._id) === id)
    }

    test('the editor locks: lockedBy is their e-mail, one configuration_updated; the owner and others get 409 naming them', async () => {
      const c = await create()
      const locked = await lock(m.editor.headers, c._id)
      assert.equal(locked.statusCode, 200, locked.body)
      const held: Configuration = locked.json().configuration
      assert.equal(held.lockedBy, m.editor.account.email)
      assert.equal(held.__v, c.__v + 1)
      assert.equal(held.lastModificationAuthor, null, 'a lock is no modification of the view')
      const again = await lock(m.editor.headers, c._id)
      assert.equal(again.json().configuration.__v, held.__v, 'locking your own lock changes nothing')
      const events = await eventsOf(c._id)
      assert.deepEqual(
        events.map(({ event, data }) => [event, data.old?.lockedBy, data.new?.lockedBy]),
        [
          ['configuration_created', undefined, undefined],
          ['configuration_updated', null, m.editor.account.email],
        ],
      )
      for (const res of [
        await lock(m.owner.headers, c._id),
        await save(m.owner.headers, { _id: c._id, name: 'Mine' }),
        await remove(m.owner.headers, c._id),
      ]) {
        assert.equal(res.statusCode, 409, res.body)
        assert.equal(problemOf(res).code, 'CONFIGURATION_LOCKED')
        assert.match(problemOf(res).detail, new RegExp(m.editor.account.email.replace(/\./g, '\\.')))
      }
      // Roles still come first: a viewer 403, a stranger 404 (no holder revealed).
      assert.equal((await save(m.viewer.headers, { _id: c._id, name: 'x' })).statusCode, 403)
      assert.equal((await lock(m.viewer.headers, c._id)).statusCode, 403)
      assert.equal((await lock(m.stranger.headers, c._id)).statusCode, 404)
      assert.equal((await unlock(m.stranger.headers, c._id)).statusCode, 404)
      // The holder still updates.
      const mine = await save(m.editor.headers, { _id: c._id, name: 'Editor’s' })
      assert.equal(mine.statusCode, 200, mine.body)
      assert.equal(mine.json().configuration.lockedBy, m.editor.account.email)
      assert.equal((await eventsOf(c._id)).length, 3, 'no event for a refused change')
    })

    test('unlock: by the holder, by the file’s owner; another writer 403; unlocked stays unlocked', async () => {
      const c = await create()
      assert.equal((await lock(m.editor.headers, c._id)).statusCode, 200)
      // Another editor (the lists allow everyone) may write the view, but is not the holder.
      const second = await signedIn(t.app, 'editor2')
      await shareFileRow(t.app, m.fileId, second.account.id, 'editor')
      const other = await unlock(second.headers, c._id)
      assert.equal(other.statusCode, 403, other.body)
      assert.match(problemOf(other).detail, /only they or the file’s owner/)
      assert.equal((await unlock(m.viewer.headers, c._id)).statusCode, 403)
      const byHolder = await unlock(m.editor.headers, c._id)
      assert.equal(byHolder.statusCode, 200, byHolder.body)
      assert.equal(byHolder.json().configuration.lockedBy, null)
      const nothing = await unlock(m.editor.headers, c._id)
      assert.equal(nothing.json().configuration.__v, byHolder.json().configuration.__v)
      // The owner releases someone else's lock, then may change it.
      assert.equal((await lock(m.editor.headers, c._id)).statusCode, 200)
      const byOwner = await unlock(m.owner.headers, c._id)
      assert.equal(byOwner.statusCode, 200, byOwner.body)
      assert.equal(byOwner.json().configuration.lockedBy, null)
      assert.equal((await save(m.owner.headers, { _id: c._id, name: 'Free' })).statusCode, 200)
      // The owner's lock: the editor cannot release it (403) nor change the view (409).
      assert.equal((await lock(m.owner.headers, c._id)).statusCode, 200)
      const editorUnlock = await unlock(m.editor.headers, c._id)
      assert.equal(editorUnlock.statusCode, 403)
      assert.equal(problemOf(editorUnlock).code, 'FORBIDDEN')
      assert.equal((await save(m.editor.headers, { _id: c._id, name: 'x' })).statusCode, 409)
      assert.equal((await remove(m.owner.headers, c._id)).statusCode, 200, 'the holder deletes')
    })

    test('lockedBy through the ordinary create and update is ignored; the spec sample values validate', async () => {
      const created = await save(m.owner.headers, { file: m.fileId, lockedBy: 'someone@example.com' })
      assert.equal(created.statusCode, 200, created.body)
      const c: Configuration = created.json().configuration
      assert.equal(c.lockedBy, null)
      const sent = await save(m.editor.headers, { _id: c._id, lockedBy: m.editor.account.email })
      assert.equal(sent.statusCode, 200, sent.body)
      assert.equal(sent.json().configuration.lockedBy, null)
      assert.equal(sent.json().configuration.__v, c.__v, 'nothing else changed: no new revision')
      assert.equal((await save(m.owner.headers, { _id: c._id, lockedBy: null })).statusCode, 200)
      // A lock is not taken by the update call: the owner still changes it.
      assert.equal((await save(m.owner.headers, { _id: c._id, name: 'Still mine' })).statusCode, 200)
      assert.equal((await lock(m.owner.headers, 'f'.repeat(24))).statusCode, 404)
      assert.equal((await lock(m.owner.headers, 'nope' as string)).statusCode, 400)
    })

    test('two lockers at once: exactly one wins, the other learns who', async () => {
      for (let round = 0; round < 3; round++) {
        const c = await create()
        const [a, b] = await Promise.all([lock(m.owner.headers, c._id), lock(m.editor.headers, c._id)])
        const statuses = [a.statusCode, b.statusCode].sort()
        assert.deepEqual(statuses, [200, 409], `${a.body} ${b.body}`)
        const winner = a.statusCode === 200 ? m.owner : m.editor
        const loser = a.statusCode === 200 ? b : a
        assert.match(problemOf(loser).detail, new RegExp(winner.account.email.replace(/\./g, '\\.')))
        const updates = (await eventsOf(c._id)).filter(({ event }) => event === 'configuration_updated')
        assert.equal(updates.length, 1)
        assert.equal(updates[0]?.data.new.lockedBy, winner.account.email)
      }
    })

    test('the lock and its event commit together: when the event cannot be written, nothing is locked', async () => {
      const c = await create()
      const trap =
        dialect.name === 'postgres'
          ? [
              sql`create function test_no_updated_event() returns trigger language plpgsql as $$
                begin if new.event = 'configuration_updated' then raise exception 'trapped'; end if;
                return new; end $$`,
              sql`create trigger test_no_updated_event before insert on events for each row
                execute function test_no_updated_event()`,
            ]
          : [
              sql`create trigger test_no_updated_event before insert on events
                when new.event = 'configuration_updated' begin select raise(abort, 'trapped'); end`,
            ]
      for (const statement of trap) await statement.execute(t.db.kysely)
      try {
        const res = await lock(m.editor.headers, c._id)
        assert.equal(res.statusCode, 500)
      } finally {
        await sql`drop trigger test_no_updated_event${sql.raw(dialect.name === 'postgres' ? ' on events' : '')}`.execute(
          t.db.kysely,
        )
      }
      const list = await t.app.inject({
        method: 'GET',
        url: `/file/configuration/?file=${m.fileId}`,
        headers: m.owner.headers,
      })
      const stored = (list.json().configurations as Configuration[]).find((x) => x._id === c._id)
      assert.equal(stored?.lockedBy, null)
      assert.equal(stored?.__v, c.__v)
      assert.equal((await lock(m.editor.headers, c._id)).statusCode, 200)
    })
  })
}

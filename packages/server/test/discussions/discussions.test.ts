// Discussions on annotations: replies (post, edit, delete, paging), the permission matrix (file role,
// readPermissions, readDiscussion, writeDiscussion), the bounds, Idempotency-Key, the counts and
// unread state, the event in the change's transaction, and nothing left behind when an annotation
// or its file goes. Every dialect.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Value } from 'typebox/value'
import { AnnotationReply, EVENT_DATA } from '../../src/contract/index.ts'
import { linkGuestDiscussionRights } from '../../src/modules/discussions/access.ts'
import { problemOf } from '../support/api.ts'
import { setCommitTrap, TRAPPED_KEY_PREFIX } from '../support/commit-trap.ts'
import { insertFileRow, type Member, type Team, team } from '../support/file-rows.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

type Headers = Record<string, string>
type Reply = { _id: string; seq: number; text: string; author: string; edited: number | null }

for (const dialect of dialects()) {
  describe(`discussions on ${dialect.name}`, () => {
    let t: TestApp
    let m: Team
    before(async () => {
      t = await startApp(dialect, { licenses: 1000, annotationMaxReplies: 5, replyPageMaxItems: 3 })
      m = await team(t.app)
      await setCommitTrap(t.db)
    })
    after(async () => t.close())

    const call = (method: 'POST' | 'DELETE' | 'GET', url: string, headers: Headers, payload?: unknown) =>
      t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) })
    async function annotate(body: Record<string, unknown> = {}, who: Member = m.owner): Promise<string> {
      const res = await call('POST', '/annotation/create/', who.headers, {
        file: m.fileId,
        name: 'n',
        ...body,
      })
      assert.equal(res.statusCode, 200, res.body)
      return res.json().annotation._id
    }
    const post = (who: Member, annotation: string, text: string, headers: Headers = {}) =>
      call('POST', '/annotation/reply/create/', { ...who.headers, ...headers }, { annotation, text })
    async function reply(who: Member, annotation: string, text: string): Promise<Reply> {
      const res = await post(who, annotation, text)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().reply
    }
    const list = (who: Member, annotation: string, query = '') =>
      call('GET', `/annotation/reply/?annotation=${annotation}${query}`, who.headers)
    const summary = async (who: Member) => {
      const res = await call('GET', `/annotation/discussion/?file=${m.fileId}`, who.headers)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().discussions as {
        annotation: string
        replies: number
        unread: number
        readUpTo: number
      }[]
    }
    const eventsOf = (annotation: string) =>
      t.db.kysely
        .selectFrom('events')
        .select(['id', 'data'])
        .where('event', '=', 'annotation_discussion_updated')
        .execute()
        .then((rows) =>
          rows.map((row) => JSON.parse(row.data)).filter((data) => data.annotation === annotation),
        )

    test('post, list, edit, delete: the reply record and its event', async () => {
      const a = await annotate()
      const first = await reply(m.viewer, a, 'Is this crack structural?')
      assert.equal(Value.Check(AnnotationReply, first), true)
      assert.deepEqual(
        [first.author, first.seq, first.edited, first.text],
        [m.viewer.account.email, 1, null, 'Is this crack structural?'],
      )
      const second = await reply(m.owner, a, 'No.')
      assert.equal(second.seq, 2)
      const listed = await list(m.editor, a)
      assert.equal(listed.statusCode, 200, listed.body)
      assert.deepEqual(
        listed.json().replies.map((r: Reply) => r._id),
        [first._id, second._id],
      )
      assert.equal(listed.json().nextCursor, null)

      const edited = await call('POST', '/annotation/reply/update/', m.viewer.headers, {
        _id: first._id,
        text: 'Is it structural?',
      })
      assert.equal(edited.statusCode, 200, edited.body)
      assert.equal(edited.json().reply.text, 'Is it structural?')
      assert.ok(typeof edited.json().reply.edited === 'number')
      const removed = await call('DELETE', `/annotation/reply/delete/?_id=${second._id}`, m.owner.headers)
      assert.equal(removed.statusCode, 200, removed.body)

      const events = await eventsOf(a)
      assert.deepEqual(
        events.map((e) => [e.change, e.reply._id, e.discussion.replies]),
        [
          ['reply_created', first._id, 1],
          ['reply_created', second._id, 2],
          ['reply_updated', first._id, 2],
          ['reply_removed', second._id, 1],
        ],
      )
      for (const data of events)
        assert.equal(Value.Check(EVENT_DATA.annotation_discussion_updated, data), true)
      // A new reply gets a new sequence number, never the deleted one's.
      assert.equal((await reply(m.editor, a, 'ok')).seq, 3)
    })

    test('roles: outsider 404, viewer reads and replies, only authors edit, owner moderates', async () => {
      const a = await annotate()
      const byEditor = await reply(m.editor, a, 'mine')
      assert.equal((await list(m.stranger, a)).statusCode, 404)
      assert.equal(problemOf(await post(m.stranger, a, 'hi')).code, 'NOT_FOUND')
      assert.equal((await list(m.viewer, a)).statusCode, 200)
      const edit = (who: Member, id: string) =>
        call('POST', '/annotation/reply/update/', who.headers, { _id: id, text: 'changed' })
      const remove = (who: Member, id: string) =>
        call('DELETE', '/annotation/reply/delete/', who.headers, { _id: id })
      assert.equal((await edit(m.viewer, byEditor._id)).statusCode, 403)
      assert.equal((await edit(m.owner, byEditor._id)).statusCode, 403)
      assert.equal((await edit(m.stranger, byEditor._id)).statusCode, 404)
      assert.equal((await remove(m.viewer, byEditor._id)).statusCode, 403)
      assert.equal((await remove(m.stranger, byEditor._id)).statusCode, 404)
      assert.equal((await remove(m.owner, byEditor._id)).statusCode, 200)
      assert.equal((await remove(m.owner, byEditor._id)).statusCode, 404)
      const byViewer = await reply(m.viewer, a, 'viewer here')
      assert.equal((await edit(m.viewer, byViewer._id)).statusCode, 200)
      assert.equal((await remove(m.viewer, byViewer._id)).statusCode, 200)
    })

    test('access lists: readPermissions hides (404), readDiscussion and writeDiscussion gate (403)', async () => {
      const hidden = await annotate({ readPermissions: [m.editor.account.email] })
      assert.equal((await list(m.viewer, hidden)).statusCode, 404)
      assert.equal((await post(m.viewer, hidden, 'x')).statusCode, 404)
      assert.equal((await list(m.editor, hidden)).statusCode, 200)

      const closed = await annotate({
        permissions: { readDiscussion: [m.editor.account.email], writeDiscussion: [m.editor.account.email] },
      })
      const viewerList = await list(m.viewer, closed)
      assert.equal(viewerList.statusCode, 403)
      assert.equal(problemOf(viewerList).code, 'FORBIDDEN')
      assert.equal((await post(m.viewer, closed, 'x')).statusCode, 403)
      assert.equal((await post(m.editor, closed, 'editor may')).statusCode, 200)
      // Its event reaches the streams of those who may read the thread, not the viewer's.
      const hearers = await t.db.kysely
        .selectFrom('event_stream')
        .innerJoin('events', 'events.id', 'event_stream.event_id')
        .select(['event_stream.account_id', 'events.data'])
        .where('events.event', '=', 'annotation_discussion_updated')
        .execute()
      const heard = hearers
        .filter((row) => JSON.parse(row.data).annotation === closed)
        .map((row) => row.account_id)
      assert.ok(heard.includes(m.owner.account.id) && heard.includes(m.editor.account.id), String(heard))
      assert.ok(!heard.includes(m.viewer.account.id))
      // The annotation's author and the file's owner always may.
      const byEditor = await annotate({ permissions: { readDiscussion: ['nobody@example.com'] } }, m.editor)
      assert.equal((await post(m.editor, byEditor, 'author may')).statusCode, 200)
      assert.equal((await post(m.owner, byEditor, 'owner may')).statusCode, 200)
      assert.equal((await list(m.viewer, byEditor)).statusCode, 403)

      const readOnly = await annotate({
        permissions: { readDiscussion: ['*'], writeDiscussion: ['x@example.com'] },
      })
      assert.equal((await list(m.viewer, readOnly)).statusCode, 200)
      assert.equal((await post(m.viewer, readOnly, 'x')).statusCode, 403)
      // The summary leaves out threads the caller may not read.
      const threads = (await summary(m.viewer)).map((d) => d.annotation)
      assert.ok(!threads.includes(closed) && !threads.includes(hidden) && !threads.includes(byEditor))
      assert.ok((await summary(m.editor)).some((d) => d.annotation === closed))
    })

    test('link guests: read only where readPermissions and readDiscussion are open, never write', () => {
      const row = (read: string[], readDiscussion: string[]) => ({
        id: 'a',
        file_id: 'f',
        author_id: 'u',
        read_permissions: JSON.stringify(read),
        write_permissions: '[]',
        permissions: JSON.stringify({ readDiscussion, writeDiscussion: [] }),
      })
      assert.deepEqual(linkGuestDiscussionRights(row([], [])), {
        seesAnnotation: true,
        read: true,
        write: false,
        fileOwner: false,
      })
      assert.equal(linkGuestDiscussionRights(row(['*'], ['*'])).read, true)
      assert.equal(linkGuestDiscussionRights(row([], ['a@example.com'])).read, false)
      assert.equal(linkGuestDiscussionRights(row(['a@example.com'], [])).seesAnnotation, false)
    })

    test('paging: oldest first, cursor pages, bad cursor and limit 400', async () => {
      const a = await annotate()
      const posted = []
      for (const text of ['1', '2', '3', '4']) posted.push(await reply(m.owner, a, text))
      const first = await list(m.editor, a, '&limit=2')
      assert.deepEqual(
        first.json().replies.map((r: Reply) => r.text),
        ['1', '2'],
      )
      const next = await list(m.editor, a, `&limit=2&cursor=${first.json().nextCursor}`)
      assert.deepEqual(
        next.json().replies.map((r: Reply) => r.text),
        ['3', '4'],
      )
      assert.equal(next.json().nextCursor, null)
      // The default page is TESSERA_REPLY_PAGE_MAX_ITEMS (3 here).
      assert.equal((await list(m.editor, a)).json().replies.length, 3)
      assert.equal(problemOf(await list(m.editor, a, '&cursor=AAAA')).code, 'INVALID_CURSOR')
      assert.equal(problemOf(await list(m.editor, a, '&limit=4')).code, 'VALIDATION_FAILED')
    })

    test('bounds: empty, blank and too long text 400; the reply cap 409 with no event', async () => {
      const a = await annotate()
      for (const text of ['', '   ', 'x'.repeat(4001)]) {
        const res = await post(m.owner, a, text)
        assert.equal(res.statusCode, 400, text.slice(0, 10))
        assert.equal(problemOf(res).code, 'VALIDATION_FAILED')
      }
      assert.equal((await post(m.owner, a, 'x'.repeat(4000))).statusCode, 200)
      for (let i = 0; i < 4; i += 1) await reply(m.owner, a, `r${i}`)
      const refused = await post(m.owner, a, 'one too many')
      assert.equal(refused.statusCode, 409)
      assert.equal(problemOf(refused).code, 'REPLY_LIMIT_REACHED')
      assert.equal((await eventsOf(a)).length, 5)
    })

    test('Idempotency-Key: a repeat answers the first reply; reply, event and answer commit together', async () => {
      const a = await annotate()
      const key = { 'idempotency-key': `discuss-${a}` }
      const first = await post(m.editor, a, 'once', key)
      const again = await post(m.editor, a, 'once', key)
      assert.equal(again.statusCode, 200)
      assert.equal(again.headers['idempotent-replayed'], 'true')
      assert.equal(again.json().reply._id, first.json().reply._id)
      assert.equal((await list(m.editor, a)).json().replies.length, 1)
      // A commit that fails takes the reply, its counts and its event with it.
      const trapped = await post(m.editor, a, 'lost', { 'idempotency-key': `${TRAPPED_KEY_PREFIX}${a}` })
      assert.equal(trapped.statusCode, 500)
      assert.equal((await list(m.editor, a)).json().replies.length, 1)
      assert.equal((await eventsOf(a)).length, 1)
    })

    test('unread: per account, by others only, mark read moves forward only', async () => {
      const a = await annotate()
      await reply(m.owner, a, 'one')
      await reply(m.owner, a, 'two')
      await reply(m.editor, a, 'three')
      const of = async (who: Member) => (await summary(who)).find((d) => d.annotation === a)
      assert.deepEqual(
        [(await of(m.viewer))?.unread, (await of(m.editor))?.unread, (await of(m.owner))?.unread],
        [3, 2, 1],
      )
      const read = (who: Member, upTo?: number) =>
        call('POST', '/annotation/reply/read/', who.headers, {
          annotation: a,
          ...(upTo === undefined ? {} : { upTo }),
        })
      const partly = await read(m.viewer, 1)
      assert.equal(partly.statusCode, 200, partly.body)
      assert.deepEqual(partly.json().discussion, {
        annotation: a,
        replies: 3,
        lastReplyAt: partly.json().discussion.lastReplyAt,
        unread: 2,
        readUpTo: 1,
      })
      assert.equal((await read(m.viewer)).json().discussion.unread, 0)
      assert.equal((await read(m.viewer, 1)).json().discussion.readUpTo, 3)
      await reply(m.owner, a, 'four')
      assert.equal((await of(m.viewer))?.unread, 1)
      assert.equal((await of(m.editor))?.unread, 3)
      assert.equal((await read(m.stranger)).statusCode, 404)
    })

    test('deleting an annotation or its file leaves no reply, count or marker', async () => {
      const a = await annotate()
      await reply(m.editor, a, 'x')
      await call('POST', '/annotation/reply/read/', m.viewer.headers, { annotation: a })
      const count = async (table: 'annotation_replies' | 'annotation_discussions' | 'annotation_reads') =>
        (await t.db.kysely.selectFrom(table).select('annotation_id').where('annotation_id', '=', a).execute())
          .length
      assert.deepEqual(
        [
          await count('annotation_replies'),
          await count('annotation_discussions'),
          await count('annotation_reads'),
        ],
        [1, 1, 1],
      )
      const gone = await call('DELETE', '/annotation/delete/', m.owner.headers, { _id: a })
      assert.equal(gone.statusCode, 200, gone.body)
      assert.deepEqual(
        [
          await count('annotation_replies'),
          await count('annotation_discussions'),
          await count('annotation_reads'),
        ],
        [0, 0, 0],
      )

      // A file's deletion takes its annotations and so their discussions.
      const fileId = await insertFileRow(t.app, m.owner.account.id)
      const res = await call('POST', '/annotation/create/', m.owner.headers, { file: fileId, name: 'x' })
      const onFile = res.json().annotation._id
      await reply(m.owner, onFile, 'y')
      const deleted = await call('DELETE', `/file/${fileId}`, m.owner.headers)
      assert.equal(deleted.statusCode, 200, deleted.body)
      const left = await t.db.kysely
        .selectFrom('annotation_replies')
        .select('id')
        .where('file_id', '=', fileId)
        .execute()
      assert.deepEqual(left, [])
      assert.equal((await list(m.owner, onFile)).statusCode, 404)
    })
  })
}

// Revision numbers people see count uploads (1, 2, 3): sharing and revoking move `__v`, never the
// number; the file's view and its revisions list say the same; migration 0026 numbers existing
// files 1..n in upload order.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type Db, migrate } from '../../src/platform/db/index.ts'
import { signedIn } from '../support/api.ts'
import { uploadFile } from '../support/files.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

const NOW = 1_700_000_000_000

interface Revision {
  __v: number
  revisionNumber: number
  current: boolean
}

/** A file row as 0025 knows it, `__v` = `version`. */
function fileRow(id: string, version: number) {
  return {
    id,
    owner_id: 'acc',
    user_id: 'acc',
    parent: '/',
    key: `/${id}.stl`,
    name: `${id}.stl`,
    size: 1,
    sha256: '',
    state: 'ready' as const,
    error: '',
    progress: 100,
    bucket: 'b',
    blob_key: `originals/${id}`,
    share_token: '',
    is_link: 0,
    allow_live_public_meetings: 0,
    roles: '[]',
    attributes: '{}',
    scene_tree_names: '[]',
    scene_tree_roots: '[]',
    favorited_by: '[]',
    type: 'file',
    created_at: NOW,
    updated_at: NOW,
    revision_date: NOW,
    version,
    optimized_key: null,
    optimized_size: 0,
    optimized_sha256: '',
  }
}

function historyRow(fileId: string, version: number) {
  return {
    file_id: fileId,
    version,
    name: `${fileId}.stl`,
    size: 1,
    sha256: '',
    blob_key: `originals/${fileId}-${version}`,
    uploaded_by: 'acc',
    revision_date: NOW + version,
    pruned_at: null,
  }
}

for (const dialect of dialects()) {
  describe(`revision numbers through the API on ${dialect.name}`, () => {
    let t: TestApp
    before(async () => {
      t = await startApp(dialect)
    })
    after(() => t.close())

    test('1, 2, 3 after uploads, whatever shares and revokes did to __v', async () => {
      const owner = await signedIn(t.app)
      const friend = await signedIn(t.app)
      const first = await uploadFile(t.app, owner.headers, { name: 'part.stl' })
      assert.equal(first.revisionNumber, 1)
      const share = await t.app.inject({
        method: 'POST',
        url: `/file/${first._id}/share`,
        headers: owner.headers,
        payload: { email: friend.account.email, role: 'viewer' },
      })
      assert.equal(share.statusCode, 200, share.body)
      const shared = (share.json() as { file: { __v: number; revisionNumber: number } }).file
      assert.ok(shared.__v > first.__v, 'a share moves __v')
      assert.equal(shared.revisionNumber, 1, 'a share does not move the revision number')
      const revoke = await t.app.inject({
        method: 'DELETE',
        url: `/file/${first._id}/share/${encodeURIComponent(friend.account.email)}`,
        headers: owner.headers,
      })
      assert.equal(revoke.statusCode, 200, revoke.body)
      assert.equal((revoke.json() as { file: { revisionNumber: number } }).file.revisionNumber, 1)

      const second = await uploadFile(t.app, owner.headers, {
        name: 'part.stl',
        data: Buffer.from('solid b\n'),
      })
      assert.equal(second.revisionNumber, 2)
      const third = await uploadFile(t.app, owner.headers, {
        name: 'part.stl',
        data: Buffer.from('solid c\n'),
      })
      assert.equal(third.revisionNumber, 3)

      const list = await t.app.inject({ url: `/file/${first._id}/revisions`, headers: owner.headers })
      assert.equal(list.statusCode, 200, list.body)
      const revisions = (list.json() as { revisions: Revision[] }).revisions
      assert.deepEqual(
        revisions.map((r) => [r.revisionNumber, r.current]),
        [
          [3, true],
          [2, false],
          [1, false],
        ],
      )
      const view = await t.app.inject({ url: `/file/${first._id}`, headers: owner.headers })
      assert.equal((view.json() as { file: { revisionNumber: number } }).file.revisionNumber, 3)
      const listing = await t.app.inject({ url: '/file/dir/private/', headers: owner.headers })
      const row = (listing.json() as { files: Array<{ _id: string; revisionNumber: number }> }).files.find(
        (f) => f._id === first._id,
      )
      assert.equal(row?.revisionNumber, 3)
    })
  })

  describe(`0026_revision_numbers on ${dialect.name}`, () => {
    let db: Db
    let drop: () => Promise<void> = async () => {}
    before(async () => {
      const opened = await dialect.open('0025_auth_listeners')
      db = opened.db
      drop = opened.drop
      await db.kysely
        .insertInto('accounts')
        .values({
          id: 'acc',
          email: 'a@example.com',
          username: 'a',
          password_hash: 'x',
          is_admin: 0,
          disabled: 0,
          created_at: NOW,
          updated_at: NOW,
        })
        .execute()
      // never: one upload, shared twice (`__v` 2). thrice: uploads at __v 0, 3 (after a share) and
      // 4, now at 6 (shared twice since). other: two uploads.
      await db.kysely
        .insertInto('files')
        .values([fileRow('never', 2), fileRow('thrice', 6), fileRow('other', 1)])
        .execute()
      await db.kysely
        .insertInto('file_revisions')
        .values([
          historyRow('thrice', 4),
          historyRow('thrice', 0),
          historyRow('thrice', 3),
          historyRow('other', 0),
        ])
        .execute()
      assert.deepEqual(await migrate(db, '0026_revision_numbers'), ['0026_revision_numbers'])
    })
    after(async () => {
      await drop()
    })

    test('existing files and their history are numbered 1..n in upload order', async () => {
      const files = await db.kysely
        .selectFrom('files')
        .select(['id', 'revision_number'])
        .orderBy('id')
        .execute()
      assert.deepEqual(
        files.map((f) => [f.id, Number(f.revision_number)]),
        [
          ['never', 1],
          ['other', 2],
          ['thrice', 4],
        ],
      )
      const history = await db.kysely
        .selectFrom('file_revisions')
        .select(['file_id', 'version', 'revision_number'])
        .orderBy('file_id')
        .orderBy('version')
        .execute()
      assert.deepEqual(
        history.map((r) => [r.file_id, Number(r.version), Number(r.revision_number)]),
        [
          ['other', 0, 1],
          ['thrice', 0, 1],
          ['thrice', 3, 2],
          ['thrice', 4, 3],
        ],
      )
    })
  })
}

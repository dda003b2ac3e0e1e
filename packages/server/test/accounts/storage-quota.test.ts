// Per-account storage quotas: uploads past TESSERA_ACCOUNT_QUOTA_BYTES (current files plus kept
// revisions) and attribute writes past TESSERA_ACCOUNT_MAX_ATTRIBUTE_BYTES are refused with 413
// QUOTA_EXCEEDED and leave nothing behind. Every dialect.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { problemOf, signedIn } from '../support/api.ts'
import { insertFileRow } from '../support/file-rows.ts'
import { postForm, uploadFile } from '../support/files.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

const KIB = 1024

for (const dialect of dialects()) {
  describe(`account quotas on ${dialect.name}`, () => {
    let t: TestApp
    before(async () => {
      t = await startApp(dialect, {
        licenses: 100,
        accountQuotaBytes: 10 * KIB,
        accountMaxAttributeBytes: 8 * KIB,
      })
    })
    after(async () => t.close())

    const stl = (bytes: number) => Buffer.from(`solid q\n${' '.repeat(bytes - 8)}`)

    test('uploads past the account quota: 413 QUOTA_EXCEEDED, no file row, room after a delete', async () => {
      const user = await signedIn(t.app, 'quota')
      const first = await uploadFile(t.app, user.headers, { name: 'a.stl', data: stl(6 * KIB) })
      const refused = await postForm(t.app, user.headers, [
        { name: 'file', filename: 'b.stl', data: stl(5 * KIB) },
      ])
      assert.equal(refused.statusCode, 413, refused.body)
      const problem = problemOf(refused)
      assert.equal(problem.code, 'QUOTA_EXCEEDED')
      assert.match(problem.detail, /TESSERA_ACCOUNT_QUOTA_BYTES/)
      const rows = await t.db.kysely
        .selectFrom('files')
        .select('name')
        .where('owner_id', '=', user.account.id)
        .execute()
      assert.deepEqual(
        rows.map((r) => r.name),
        ['a.stl'],
      )
      // A new revision counts the kept one too: 6 KiB kept + 5 KiB new is past 10 KiB.
      const revision = await postForm(t.app, user.headers, [
        { name: 'file', filename: 'a.stl', data: stl(5 * KIB) },
      ])
      assert.equal(revision.statusCode, 413, revision.body)
      // Another account has its own quota.
      const other = await signedIn(t.app, 'quota')
      await uploadFile(t.app, other.headers, { name: 'b.stl', data: stl(5 * KIB) })
      const del = await t.app.inject({ method: 'DELETE', url: `/file/${first._id}`, headers: user.headers })
      assert.equal(del.statusCode, 200, del.body)
      await uploadFile(t.app, user.headers, { name: 'b.stl', data: stl(5 * KIB) })
    })

    test('attribute writes past the owner’s attribute quota: 413 QUOTA_EXCEEDED, nothing written', async () => {
      const user = await signedIn(t.app, 'quota')
      const write = (file: string, value: string) =>
        t.app.inject({
          method: 'POST',
          url: '/scene/attributes',
          headers: user.headers,
          payload: { file, nodeIdToAttributes: { n: { v: value } } },
        })
      const one = await insertFileRow(t.app, user.account.id)
      const two = await insertFileRow(t.app, user.account.id)
      assert.equal((await write(one, 'x'.repeat(5 * KIB))).statusCode, 200)
      const refused = await write(two, 'y'.repeat(5 * KIB))
      assert.equal(refused.statusCode, 413, refused.body)
      assert.equal(problemOf(refused).code, 'QUOTA_EXCEEDED')
      const stored = await t.db.kysely
        .selectFrom('scene_attributes')
        .select('file_id')
        .where('file_id', '=', two)
        .execute()
      assert.equal(stored.length, 0)
      // Shrinking is always allowed; then the other file fits.
      assert.equal((await write(one, 'x')).statusCode, 200)
      assert.equal((await write(two, 'y'.repeat(5 * KIB))).statusCode, 200)
    })
  })
}

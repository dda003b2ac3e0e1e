// Per-account storage quotas: uploads and saved-view thumbnails past TESSERA_ACCOUNT_QUOTA_BYTES
// (current files plus kept revisions plus thumbnails, charged to the file's owner) and attribute
// writes past TESSERA_ACCOUNT_MAX_ATTRIBUTE_BYTES are refused with 413 QUOTA_EXCEEDED and leave
// nothing behind. Every dialect.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { problemOf, signedIn } from '../support/api.ts'
import { insertFileRow, shareFileRow } from '../support/file-rows.ts'
import { postForm, uploadFile } from '../support/files.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

const KIB = 1024

/** A thumbnail of exactly `bytes` bytes: a PNG signature and IHDR (1×1), then padding the server never decodes. */
function pngOf(bytes: number): Buffer {
  const head = Buffer.alloc(33)
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(head)
  head.writeUInt32BE(13, 8)
  head.write('IHDR', 12, 'latin1')
  head.writeUInt32BE(1, 16)
  head.writeUInt32BE(1, 20)
  return Buffer.concat([head, Buffer.alloc(bytes - head.length)])
}

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

    /** An owner's file (4 bytes) shared with an editor, and a saved view of it the editor makes. */
    async function sharedFile() {
      const owner = await signedIn(t.app, 'quota')
      const editor = await signedIn(t.app, 'quota')
      const fileId = await insertFileRow(t.app, owner.account.id)
      await shareFileRow(t.app, fileId, editor.account.id, 'editor')
      const view = async () => {
        const res = await t.app.inject({
          method: 'POST',
          url: '/file/configuration/',
          headers: editor.headers,
          payload: { file: fileId, name: 'View' },
        })
        assert.equal(res.statusCode, 200, res.body)
        return res.json().configuration._id as string
      }
      return { owner, editor, fileId, view }
    }
    const putThumbnail = (headers: Record<string, string>, id: string, bytes: number) =>
      t.app.inject({
        method: 'PUT',
        url: `/file/configuration/${id}/thumbnail`,
        headers: { ...headers, 'content-type': 'image/png' },
        payload: pngOf(bytes),
      })
    const storedThumbnail = async (id: string) =>
      (
        await t.db.kysely
          .selectFrom('configuration_thumbnails')
          .select('size')
          .where('configuration_id', '=', id)
          .executeTakeFirst()
      )?.size

    test('a thumbnail past the file owner’s quota (an editor storing it): 413 QUOTA_EXCEEDED, nothing stored; the editor’s own quota is untouched', async () => {
      const { owner, editor, view } = await sharedFile()
      const [one, two] = [await view(), await view()]
      assert.equal((await putThumbnail(editor.headers, one, 6 * KIB)).statusCode, 200)
      const refused = await putThumbnail(editor.headers, two, 5 * KIB)
      assert.equal(refused.statusCode, 413, refused.body)
      const problem = problemOf(refused)
      assert.equal(problem.code, 'QUOTA_EXCEEDED')
      // The owner's figure: the file's 4 bytes, the stored thumbnail and the refused one.
      assert.match(problem.detail, new RegExp(`to ${4 + 11 * KIB} bytes.*TESSERA_ACCOUNT_QUOTA_BYTES`))
      assert.equal(await storedThumbnail(two), undefined, 'nothing stored')
      assert.equal(problemOf(await putThumbnail(owner.headers, two, 5 * KIB)).code, 'QUOTA_EXCEEDED')
      // The bytes are the owner's, not the editor's: the editor still has a whole quota of their own.
      await uploadFile(t.app, editor.headers, { name: 'e.stl', data: stl(10 * KIB) })
    })

    test('uploads count the thumbnails of the owner’s files: the usage figure includes them', async () => {
      const { owner, editor, view } = await sharedFile()
      assert.equal((await putThumbnail(editor.headers, await view(), 3 * KIB)).statusCode, 200)
      // 4 + 3 KiB + 7 KiB is past 10 KiB only because the thumbnail counts.
      const refused = await postForm(t.app, owner.headers, [
        { name: 'file', filename: 'b.stl', data: stl(7 * KIB) },
      ])
      assert.equal(refused.statusCode, 413, refused.body)
      assert.match(problemOf(refused).detail, new RegExp(`to ${4 + 10 * KIB} bytes`))
      await uploadFile(t.app, owner.headers, { name: 'b.stl', data: stl(7 * KIB - 4) })
    })

    test('replacing a thumbnail counts the difference; past the quota the old one stays; shrinking always passes', async () => {
      const { editor, fileId, view } = await sharedFile()
      const id = await view()
      assert.equal((await putThumbnail(editor.headers, id, 6 * KIB)).statusCode, 200)
      // 4 + 9 KiB fits; counting the replaced 6 KiB too would not.
      assert.equal((await putThumbnail(editor.headers, id, 9 * KIB)).statusCode, 200)
      assert.equal(await storedThumbnail(id), 9 * KIB)
      const refused = await putThumbnail(editor.headers, id, 10 * KIB)
      assert.equal(problemOf(refused).code, 'QUOTA_EXCEEDED')
      assert.match(problemOf(refused).detail, new RegExp(`to ${4 + 10 * KIB} bytes`))
      assert.equal(await storedThumbnail(id), 9 * KIB, 'the refused one replaced nothing')
      // The owner past the quota (as after lowering it: 8 KiB of file + 9 KiB): a smaller picture passes.
      await t.db.kysely
        .updateTable('files')
        .set({ size: 8 * KIB })
        .where('id', '=', fileId)
        .execute()
      assert.equal((await putThumbnail(editor.headers, id, 8 * KIB)).statusCode, 200)
      assert.equal(problemOf(await putThumbnail(editor.headers, id, 8 * KIB + 1)).code, 'QUOTA_EXCEEDED')
      assert.equal(await storedThumbnail(id), 8 * KIB)
    })

    test('deleting the view, then the file, gives the thumbnails’ bytes back', async () => {
      const { owner, editor, fileId, view } = await sharedFile()
      const [one, two] = [await view(), await view()]
      assert.equal((await putThumbnail(editor.headers, one, 6 * KIB)).statusCode, 200)
      assert.equal(problemOf(await putThumbnail(editor.headers, two, 6 * KIB)).code, 'QUOTA_EXCEEDED')
      const removed = await t.app.inject({
        method: 'DELETE',
        url: `/file/configuration/?_id=${one}`,
        headers: owner.headers,
      })
      assert.equal(removed.statusCode, 200, removed.body)
      assert.equal((await putThumbnail(editor.headers, two, 9 * KIB)).statusCode, 200)
      const refused = await postForm(t.app, owner.headers, [
        { name: 'file', filename: 'c.stl', data: stl(2 * KIB) },
      ])
      assert.equal(problemOf(refused).code, 'QUOTA_EXCEEDED')
      const del = await t.app.inject({ method: 'DELETE', url: `/file/${fileId}`, headers: owner.headers })
      assert.equal(del.statusCode, 200, del.body)
      assert.equal(await storedThumbnail(two), undefined, 'gone with its file')
      await uploadFile(t.app, owner.headers, { name: 'c.stl', data: stl(10 * KIB) })
    })

    test('two thumbnails on two files of one owner that each fit but not together: one stored, the other 413', async () => {
      const first = await sharedFile()
      const other = await insertFileRow(t.app, first.owner.account.id)
      const created = await t.app.inject({
        method: 'POST',
        url: '/file/configuration/',
        headers: first.owner.headers,
        payload: { file: other, name: 'View' },
      })
      assert.equal(created.statusCode, 200, created.body)
      // Two files: their own locks do not queue the writes, the owner's quota lock does.
      const [one, two] = [await first.view(), created.json().configuration._id as string]
      const answers = await Promise.all([
        putThumbnail(first.editor.headers, one, 6 * KIB),
        putThumbnail(first.owner.headers, two, 6 * KIB),
      ])
      assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 413])
      const sizes = [await storedThumbnail(one), await storedThumbnail(two)]
      assert.equal(sizes.filter((size) => size !== undefined).length, 1)
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

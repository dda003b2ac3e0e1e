// Saved views' thumbnails (PUT/GET /file/configuration/{id}/thumbnail), every dialect: the size
// bound (413), the magic bytes and declared dimensions (415, never decoded), the ETag, who may read
// and write (a stranger 404, a viewer 403, another's lock 409, a link guest reads), and the cascade
// when the configuration or its file goes.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { crc32, deflateSync } from 'node:zlib'
import { linkGuest, problemOf } from '../support/api.ts'
import { type Team, team } from '../support/file-rows.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

type Headers = Record<string, string>

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(data.length, 0)
  head.write(type, 4, 'latin1')
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])))
  return Buffer.concat([head, data, crc])
}

/** A real RGBA PNG of `width`×`height` (noise when `noisy`: it does not compress). */
function png(width: number, height: number, noisy = false): Buffer {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr.set([8, 6, 0, 0, 0], 8)
  const length = (width * 4 + 1) * height
  const raw = noisy ? randomBytes(length) : Buffer.alloc(length)
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

/** A 300-byte PNG whose header declares `width`×`height` (its data is not there). */
function pngDeclaring(width: number, height: number): Buffer {
  const real = png(1, 1)
  const lie = Buffer.from(real)
  lie.writeUInt32BE(width, 16)
  lie.writeUInt32BE(height, 20)
  return Buffer.concat([lie, Buffer.alloc(300 - lie.length)])
}

/** An extended WebP (VP8X) header declaring `width`×`height`. */
function webpDeclaring(width: number, height: number): Buffer {
  const bytes = Buffer.alloc(40)
  bytes.write('RIFF', 0, 'latin1')
  bytes.writeUInt32LE(32, 4)
  bytes.write('WEBPVP8X', 8, 'latin1')
  bytes.writeUInt32LE(10, 16)
  bytes.writeUIntLE(width - 1, 24, 3)
  bytes.writeUIntLE(height - 1, 27, 3)
  return bytes
}

for (const dialect of dialects()) {
  describe(`saved view thumbnails on ${dialect.name}`, () => {
    let t: TestApp
    let m: Team
    before(async () => {
      t = await startApp(dialect, { licenses: 1000 })
      m = await team(t.app)
    })
    after(async () => t.close())

    const url = (id: string) => `/file/configuration/${id}/thumbnail`
    const put = (headers: Headers, id: string, body: Buffer, type = 'image/png') =>
      t.app.inject({
        method: 'PUT',
        url: url(id),
        headers: { ...headers, 'content-type': type },
        payload: body,
      })
    const get = (headers: Headers, id: string, extra: Headers = {}) =>
      t.app.inject({ method: 'GET', url: url(id), headers: { ...headers, ...extra } })
    async function create(body: object = {}, headers: Headers = m.owner.headers): Promise<string> {
      const res = await t.app.inject({
        method: 'POST',
        url: '/file/configuration/',
        headers,
        payload: { file: m.fileId, name: 'View', ...body },
      })
      assert.equal(res.statusCode, 200, res.body)
      return res.json().configuration._id
    }

    test('stored and read back as sent: content type, ETag, private cache, 304; none yet: 404; the record is unchanged', async () => {
      const id = await create()
      assert.equal(problemOf(await get(m.owner.headers, id)).status, 404)
      const image = png(320, 200)
      const stored = await put(m.editor.headers, id, image)
      assert.equal(stored.statusCode, 200, stored.body)
      const { thumbnail } = stored.json()
      assert.deepEqual(
        { ...thumbnail, sha256: undefined },
        { contentType: 'image/png', width: 320, height: 200, size: image.length, sha256: undefined },
      )
      const res = await get(m.viewer.headers, id)
      assert.equal(res.statusCode, 200)
      assert.equal(res.headers['content-type'], 'image/png')
      assert.match(String(res.headers['cache-control']), /^private/)
      assert.equal(res.headers.etag, `"${thumbnail.sha256}"`)
      assert.deepEqual(res.rawPayload, image)
      assert.equal(
        (await get(m.viewer.headers, id, { 'if-none-match': res.headers.etag as string })).statusCode,
        304,
      )
      const webp = webpDeclaring(160, 100)
      const replaced = await put(m.owner.headers, id, webp, 'image/webp')
      assert.equal(replaced.statusCode, 200, replaced.body)
      const again = await get(m.owner.headers, id)
      assert.equal(again.headers['content-type'], 'image/webp')
      assert.deepEqual(again.rawPayload, webp)
      const list = await t.app.inject({
        method: 'GET',
        url: `/file/configuration/?file=${m.fileId}`,
        headers: m.owner.headers,
      })
      const record = list.json().configurations.find((c: { _id: string }) => c._id === id)
      assert.equal(record.__v, 0, 'a thumbnail is no change of the record')
      assert.equal('thumbnail' in record, false)
    })

    test('over 64 KiB: 413; not a PNG or WebP, a type that lies, or a header declaring more than 1024×1024: 415', async () => {
      const id = await create()
      const big = png(200, 200, true)
      assert.ok(big.length > 64 * 1024, `${big.length}`)
      assert.equal(problemOf(await put(m.owner.headers, id, big)).status, 413)
      const gif = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1')
      assert.equal(problemOf(await put(m.owner.headers, id, gif)).status, 415)
      assert.equal(problemOf(await put(m.owner.headers, id, gif, 'image/gif')).status, 415)
      assert.equal(problemOf(await put(m.owner.headers, id, png(8, 8), 'image/webp')).status, 415)
      const giant = pngDeclaring(100_000, 100_000)
      assert.equal(giant.length, 300)
      const refused = problemOf(await put(m.owner.headers, id, giant))
      assert.equal(refused.status, 415)
      assert.match(refused.detail, /100000×100000/)
      assert.equal(problemOf(await put(m.owner.headers, id, pngDeclaring(1025, 10))).status, 415)
      assert.equal(
        problemOf(await put(m.owner.headers, id, webpDeclaring(2000, 10), 'image/webp')).status,
        415,
      )
      assert.equal((await put(m.owner.headers, id, pngDeclaring(1024, 1024))).statusCode, 200)
    })

    test('access: a stranger 404, a viewer 403, a reader outside writePermissions 403, hidden by readPermissions 404, another’s lock 409', async () => {
      const id = await create()
      assert.equal(problemOf(await put(m.stranger.headers, id, png(4, 4))).status, 404)
      assert.equal(problemOf(await get(m.stranger.headers, id)).status, 404)
      assert.equal(problemOf(await put(m.viewer.headers, id, png(4, 4))).status, 403)
      const ownersOnly = await create({ writePermissions: [m.owner.account.email] })
      assert.equal(problemOf(await put(m.editor.headers, ownersOnly, png(4, 4))).status, 403)
      const hidden = await create({ readPermissions: [m.owner.account.email] })
      assert.equal(problemOf(await put(m.editor.headers, hidden, png(4, 4))).status, 404)
      assert.equal(problemOf(await get(m.viewer.headers, hidden)).status, 404)
      const lock = await t.app.inject({
        method: 'POST',
        url: '/file/configuration/lock/',
        headers: m.editor.headers,
        payload: { _id: id },
      })
      assert.equal(lock.statusCode, 200, lock.body)
      const locked = problemOf(await put(m.owner.headers, id, png(4, 4)))
      assert.equal(locked.status, 409)
      assert.equal(locked.code, 'CONFIGURATION_LOCKED')
      assert.equal((await put(m.editor.headers, id, png(4, 4))).statusCode, 200, 'the holder writes')
    })

    test('a link guest reads the thumbnails of the views it sees, and writes none', async () => {
      const seen = await create()
      const hidden = await create({ readPermissions: [m.editor.account.email] })
      for (const id of [seen, hidden])
        assert.equal((await put(m.owner.headers, id, png(6, 4))).statusCode, 200)
      const guest = await linkGuest(t.app, m.owner.headers, m.fileId)
      const res = await get(guest, seen)
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.rawPayload, png(6, 4))
      assert.equal(problemOf(await get(guest, hidden)).status, 404)
      const list = (headers: Headers) =>
        t.app.inject({ method: 'GET', url: `/file/configuration/thumbnails/?file=${m.fileId}`, headers })
      const listed = await list(guest)
      assert.equal(listed.statusCode, 200, listed.body)
      const ids = listed.json().thumbnails.map((e: { configuration: string }) => e.configuration)
      assert.ok(ids.includes(seen) && !ids.includes(hidden), 'the list shows only the views it sees')
      const editors = (await list(m.editor.headers)).json().thumbnails
      assert.ok(editors.some((e: { configuration: string }) => e.configuration === hidden))
      assert.equal(problemOf(await list(m.stranger.headers)).status, 404)
      assert.equal(problemOf(await put(guest, seen, png(4, 4))).status, 403)
    })

    test('deleted with its configuration, and with its file', async () => {
      const count = async () =>
        Number(
          (
            await t.db.kysely
              .selectFrom('configuration_thumbnails')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        )
      const one = await create()
      const two = await create()
      for (const id of [one, two]) assert.equal((await put(m.owner.headers, id, png(4, 4))).statusCode, 200)
      const before = await count()
      const removed = await t.app.inject({
        method: 'DELETE',
        url: `/file/configuration/?_id=${one}`,
        headers: m.owner.headers,
      })
      assert.equal(removed.statusCode, 200, removed.body)
      assert.equal(await count(), before - 1)
      assert.equal(problemOf(await get(m.owner.headers, one)).status, 404)
      await t.db.kysely.deleteFrom('files').where('id', '=', m.fileId).execute()
      assert.ok(before - 1 > 1, 'other views of the file have thumbnails too')
      assert.equal(await count(), 0, 'the file took every thumbnail of its views with it')
    })
  })
}

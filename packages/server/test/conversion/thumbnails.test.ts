// Thumbnails end to end: every ready file gets a 256×256 PNG made by the conversion child's software
// rasterizer, served at GET /file/:id/thumbnail (ETag, If-None-Match → 304, private caching) and
// listed as `thumbnailUrl` in the API's answers but not in events; 409 NOT_READY before ready, 404
// for another account. Thumbnails of two different models are not blank and not alike.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import sharp from 'sharp'
import { problemOf, signedIn } from '../support/api.ts'
import { uploadFile } from '../support/files.ts'
import { pmndrsGlb } from '../support/gltf.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { stlCube } from '../support/models.ts'
import { ok, Receiver, register, until } from '../support/receiver.ts'

type User = Awaited<ReturnType<typeof signedIn>>

interface Pixels {
  data: Buffer
  width: number
  height: number
}

async function decodePng(png: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  assert.equal(info.channels, 4)
  return { data, width: info.width, height: info.height }
}

/** Share of pixels that are not the (transparent) background. */
function coverage(image: Pixels): number {
  let drawn = 0
  for (let i = 3; i < image.data.length; i += 4) if ((image.data[i] ?? 0) > 0) drawn++
  return drawn / (image.width * image.height)
}

/** Share of pixels whose RGBA differ by more than a rounding error. */
function difference(a: Pixels, b: Pixels): number {
  let differ = 0
  for (let p = 0; p < a.data.length; p += 4) {
    let delta = 0
    for (let c = 0; c < 4; c++) delta += Math.abs((a.data[p + c] ?? 0) - (b.data[p + c] ?? 0))
    if (delta > 24) differ++
  }
  return differ / (a.width * a.height)
}

/** Distinct grey levels among drawn pixels: shading, not a silhouette. */
function shades(image: Pixels): number {
  const levels = new Set<number>()
  for (let p = 0; p < image.data.length; p += 4)
    if ((image.data[p + 3] ?? 0) === 255) levels.add(image.data[p] ?? 0)
  return levels.size
}

for (const dialect of dialects()) {
  describe(`thumbnails on ${dialect.name}`, () => {
    let t: TestApp
    let user: User
    const rx = new Receiver()
    before(async () => {
      await rx.start()
      t = await startApp(dialect, {}, { conversions: true })
      user = await signedIn(t.app, 'thumbs')
      await register(t.app, user.authToken, 'file_optimized', rx.on('/optimized', ok))
    })
    after(async () => {
      await t.close()
      await rx.stop()
    })

    const get = (url: string, who: User = user, headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'GET', url, headers: { ...who.headers, ...headers } })

    async function readyFile(name: string, data: Buffer) {
      const file = await uploadFile(t.app, user.headers, { name, data, parent: '/thumbs' })
      assert.equal(file.thumbnailUrl, null)
      // Before ready (queued, then converting): 409 NOT_READY.
      const early = await get(`/file/${file._id}/thumbnail`)
      assert.equal(early.statusCode, 409, early.body)
      assert.equal(problemOf(early).code, 'NOT_READY')
      await until(
        `${name} ready`,
        async () => {
          const res = await get(`/file/${file._id}`)
          const { file: record } = res.json() as { file: { state: string } }
          assert.notEqual(record.state, 'error', res.body)
          return record.state === 'ready' || undefined
        },
        60_000,
      )
      return file._id
    }

    test('two models: 256×256 PNGs, not blank, shaded, different from each other', async () => {
      const images: Pixels[] = []
      for (const [name, data] of [
        ['suzi.glb', Buffer.from(await pmndrsGlb('suzi'))],
        ['cube.stl', stlCube('cube')],
      ] as const) {
        const id = await readyFile(name, data)
        const res = await get(`/file/${id}/thumbnail`)
        assert.equal(res.statusCode, 200, res.body)
        assert.equal(res.headers['content-type'], 'image/png')
        assert.equal(res.headers['content-length'], String(res.rawPayload.length))
        const image = await decodePng(res.rawPayload)
        assert.deepEqual([image.width, image.height], [256, 256])
        const covered = coverage(image)
        assert.ok(
          covered > 0.15 && covered < 0.95,
          `${name}: ${(covered * 100).toFixed(1)} % of pixels drawn`,
        )
        assert.ok(shades(image) >= 3, `${name}: flat-shaded faces give several tones`)
        images.push(image)
      }
      const [suzi, cube] = images
      assert.ok(suzi && cube)
      assert.ok(difference(suzi, cube) > 0.1, 'the two thumbnails are alike')
    })

    test('thumbnailUrl in API answers (not in events); ETag + If-None-Match → 304; private caching', async () => {
      const id = await readyFile('etag.stl', stlCube('etag', 2))
      const { file } = (await get(`/file/${id}`)).json() as { file: { thumbnailUrl: string | null } }
      assert.equal(file.thumbnailUrl, `/file/${id}/thumbnail`)
      const listing = (await get('/file/dir/private/thumbs')).json() as {
        files: Array<{ _id: string; thumbnailUrl: string | null }>
      }
      assert.equal(listing.files.find((f) => f._id === id)?.thumbnailUrl, `/file/${id}/thumbnail`)
      const envelope = await until('file_optimized', async () =>
        rx
          .at('/optimized')
          .map((r) => JSON.parse(r.body) as { file: string; data: Record<string, unknown> })
          .find((e) => e.file === id),
      )
      assert.ok(!('thumbnailUrl' in envelope.data), 'events carry the spec record only')
      assert.ok(!('progress' in envelope.data))

      const first = await get(`/file/${id}/thumbnail`)
      const etag = first.headers.etag
      assert.match(String(etag), /^"[0-9a-f]{64}"$/)
      assert.match(String(first.headers['cache-control']), /^private, max-age=\d+$/)
      const again = await get(`/file/${id}/thumbnail`, user, { 'if-none-match': String(etag) })
      assert.equal(again.statusCode, 304)
      assert.equal(again.rawPayload.length, 0)
      const other = await get(`/file/${id}/thumbnail`, user, { 'if-none-match': '"nope"' })
      assert.equal(other.statusCode, 200)
      assert.ok(other.rawPayload.equals(first.rawPayload))
    })

    test('another account gets 404; a deleted file takes its thumbnail blob along', async () => {
      const id = await readyFile('private.stl', stlCube('private'))
      const stranger = await signedIn(t.app, 'thumb-stranger')
      const res = await get(`/file/${id}/thumbnail`, stranger)
      assert.equal(res.statusCode, 404)
      assert.equal(problemOf(res).code, 'NOT_FOUND')
      const row = await t.db.kysely
        .selectFrom('files')
        .select(['thumbnail_key'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
      assert.ok(row.thumbnail_key)
      assert.notEqual(await t.app.ctx.blobs.size(row.thumbnail_key), null)
      const deleted = await t.app.inject({ method: 'DELETE', url: `/file/${id}`, headers: user.headers })
      assert.equal(deleted.statusCode, 200)
      assert.equal(await t.app.ctx.blobs.size(row.thumbnail_key), null)
    })
  })
}

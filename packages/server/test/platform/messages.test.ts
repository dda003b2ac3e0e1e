// Rough edges (hardening batch 3): validation messages that name the field and list an
// enumeration once, the private-URL refusal naming its variable, a form with too many fields, and
// a file record's `bucket` that names the store without a server path.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { EVENT_NAMES } from '../../src/contract/index.ts'
import { problemOf, signedIn } from '../support/api.ts'
import { directWritesSeen } from '../support/file-rows.ts'
import { postForm, uploadFile } from '../support/files.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { ok, Receiver, register, SECRET } from '../support/receiver.ts'

for (const dialect of dialects()) {
  describe(`helpful errors and the bucket on ${dialect.name}`, () => {
    let t: TestApp
    let strict: TestApp
    const rx = new Receiver()
    before(async () => {
      await rx.start()
      t = await startApp(dialect)
      strict = await startApp(dialect, { webhookAllowPrivateUrls: false })
    })
    after(async () => {
      await t.close()
      await strict.close()
      await rx.stop()
    })

    test('an unknown event name lists the allowed names once, naming the field', async () => {
      const user = await signedIn(t.app)
      const res = await t.app.inject({
        method: 'PUT',
        url: '/webhook/',
        headers: user.headers,
        payload: { event: 'file_exploded', url: `${rx.base}/x`, secretToken: SECRET },
      })
      assert.equal(res.statusCode, 400)
      const { code, detail } = problemOf(res)
      assert.equal(code, 'VALIDATION_FAILED')
      assert.match(detail, /body\/event must be one of/)
      for (const name of EVENT_NAMES) {
        assert.equal(detail.split(`"${name}"`).length - 1, 1, `${name} once in: ${detail}`)
      }
      assert.doesNotMatch(detail, /anyOf|equal to constant/)
      const patched = await t.app.inject({
        method: 'PATCH',
        url: '/webhook/0123456789abcdef01234567',
        headers: user.headers,
        payload: { event: 'file_exploded' },
      })
      assert.equal(problemOf(patched).code, 'VALIDATION_FAILED')
      assert.match(problemOf(patched).detail, /body\/event is not a known field/)
    })

    test('validation errors name the field: missing, wrong type, query enumeration', async () => {
      const user = await signedIn(t.app)
      const cases: Array<[string, string, object | undefined, RegExp]> = [
        // (secretToken may be left out: the server then generates one.)
        ['PUT', '/webhook/', { url: `${rx.base}/y`, secretToken: SECRET }, /body\/event is required/],
        [
          'PUT',
          '/webhook/',
          { event: 'file_uploaded', url: 5, secretToken: SECRET },
          /body\/url must be string/,
        ],
        ['PATCH', '/webhook/0123456789abcdef01234567', { disabled: 'yes' }, /body\/disabled must be boolean/],
        [
          'GET',
          '/webhook/0123456789abcdef01234567/deliveries?status=lost',
          undefined,
          /querystring\/status must be one of "pending", "delivering", "succeeded", "failed", "paused"$/,
        ],
        ['POST', '/annotation/create/', { fileId: 5 }, /body\/file is required/],
      ]
      for (const [method, url, payload, expected] of cases) {
        const res = await t.app.inject({ method: method as 'PUT', url, headers: user.headers, payload })
        assert.equal(res.statusCode, 400, `${method} ${url}`)
        assert.equal(problemOf(res).code, 'VALIDATION_FAILED')
        assert.match(problemOf(res).detail, expected)
      }
    })

    test("a private webhook URL's refusal names TESSERA_WEBHOOK_ALLOW_PRIVATE_URLS", async () => {
      const user = await signedIn(strict.app)
      const res = await strict.app.inject({
        method: 'PUT',
        url: '/webhook/',
        headers: user.headers,
        payload: { event: 'file_uploaded', url: 'http://127.0.0.1:9/hook', secretToken: SECRET },
      })
      assert.equal(problemOf(res).code, 'WEBHOOK_URL_FORBIDDEN')
      assert.match(problemOf(res).detail, /TESSERA_WEBHOOK_ALLOW_PRIVATE_URLS/)
    })

    test('a form with too many fields is told so, not that the upload is too large', async () => {
      const user = await signedIn(t.app)
      const fields = Array.from({ length: 11 }, (_, i) => ({ name: `extra${i}`, value: 'x' }))
      const res = await postForm(t.app, user.headers, [
        ...fields,
        { name: 'file', filename: 'a.stl', data: Buffer.from('solid a\n') },
      ])
      assert.equal(res.statusCode, 400, res.body)
      assert.equal(problemOf(res).code, 'VALIDATION_FAILED')
      assert.match(problemOf(res).detail, /more than 10 fields/)
      assert.doesNotMatch(problemOf(res).detail, /exceeds|bytes/)
      // Ten extra fields are still fine.
      const okRes = await postForm(t.app, user.headers, [
        ...fields.slice(0, 9),
        { name: 'file', filename: 'b.stl', data: Buffer.from('solid b\n') },
      ])
      assert.equal(okRes.statusCode, 200, okRes.body)
    })

    test('bucket names the store, never a server path: answers, events, older rows', async () => {
      const user = await signedIn(t.app)
      await register(t.app, user.authToken, 'file_uploaded', rx.on('/bucket', ok))
      const file = await uploadFile(t.app, user.headers, { name: 'bucket.stl' })
      assert.equal(file.bucket, 'file://blobs')
      const read = await t.app.inject({ method: 'GET', url: `/file/${file._id}`, headers: user.headers })
      assert.ok(!read.body.includes(t.config.dataDir), read.body)
      const delivered = await until(() => rx.at('/bucket')[0])
      assert.equal(JSON.parse(delivered.body).data.bucket, 'file://blobs')
      assert.ok(!delivered.body.includes(t.config.dataDir))
      // A row written before the store was named this way shows the same name.
      await t.db.kysely
        .updateTable('files')
        .set({ bucket: `file://${t.config.dataDir}/blobs` })
        .where('id', '=', file._id)
        .execute()
      await directWritesSeen(t.db)
      const old = await t.app.inject({ method: 'GET', url: `/file/${file._id}`, headers: user.headers })
      assert.equal(old.statusCode, 200, old.body)
      assert.ok(!old.body.includes(t.config.dataDir), old.body)
      assert.match(old.body, /"bucket":"file:\/\/blobs"/)
    })
  })
}

async function until<T>(probe: () => T | undefined): Promise<T> {
  const deadline = Date.now() + 8000
  for (;;) {
    const value = probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

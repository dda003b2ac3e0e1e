// The seven events of scene attributes, annotations and configurations, from real calls, received by
// a real loopback receiver: every body is validated against the exported payload schemas
// (contract/envelope.ts) and checked for the spec's quirks. Who receives what: the owner's and a
// viewer's webhooks hear about the file, a stranger's never, and an annotation or configuration hidden
// from the viewer by its readPermissions is not announced to the viewer. Every dialect; and with the
// S3 blob driver (real s3rver): file_uploaded and the resource events of an uploaded file.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Compile } from 'typebox/compile'
import { Value } from 'typebox/value'
import { EVENT_DATA, type EventName, WEBHOOK_PAYLOADS, WebhookEnvelope } from '../../src/contract/index.ts'
import { signedIn } from '../support/api.ts'
import { type Team, team } from '../support/file-rows.ts'
import { uploadFile } from '../support/files.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { Receiver, register, until } from '../support/receiver.ts'
import { startS3 } from '../support/s3.ts'

const EVENTS = [
  'attribute_updated',
  'annotation_created',
  'annotation_updated',
  'annotation_removed',
  'configuration_created',
  'configuration_updated',
  'configuration_removed',
] as const satisfies readonly EventName[]

type Envelope = {
  file: string
  event: string
  data: Record<string, unknown>
  owner: string
  runTimestamp: number
  uuid: string
}

for (const dialect of dialects()) {
  describe(`resource events on ${dialect.name}`, () => {
    let t: TestApp
    let m: Team
    const rx = new Receiver()
    before(async () => {
      await rx.start()
      t = await startApp(dialect, { licenses: 1000, webhookRetryScheduleMs: [0, 200, 200] })
      m = await team(t.app)
      for (const event of EVENTS) {
        await register(t.app, m.owner.authToken, event, `${rx.base}/owner/${event}`)
        await register(t.app, m.viewer.authToken, event, `${rx.base}/viewer/${event}`)
        await register(t.app, m.stranger.authToken, event, `${rx.base}/stranger/${event}`)
      }
    })
    after(async () => {
      await t.close()
      await rx.stop()
    })

    const post = (url: string, headers: Record<string, string>, payload: object) =>
      t.app.inject({ method: 'POST', url, headers, payload })
    const received = (who: string, event: string) => rx.envelopes(`/${who}/${event}`) as Envelope[]

    test('all seven events arrive with the spec shapes and validate against the exported schemas', async () => {
      const h = m.editor.headers
      const attrs = await post('/scene/attributes', h, {
        file: m.fileId,
        nodeIdToAttributes: { n1: { color: 'red', old: null } },
      })
      assert.equal(attrs.statusCode, 200, attrs.body)
      const created = await post('/annotation/create/', h, { file: m.fileId, name: 'Pin', tags: ['a'] })
      const annotation = created.json().annotation
      const updated = await post('/annotation/update/', h, { _id: annotation._id, name: 'Pin 2' })
      assert.equal(updated.statusCode, 200, updated.body)
      const removed = await t.app.inject({
        method: 'DELETE',
        url: `/annotation/delete/?_id=${annotation._id}`,
        headers: h,
      })
      assert.equal(removed.statusCode, 200, removed.body)
      const configuration = (await post('/file/configuration/', h, { file: m.fileId, name: 'View' })).json()
        .configuration
      const cUpdated = await post('/file/configuration/', h, { _id: configuration._id, zNear: 0.5 })
      assert.equal(cUpdated.statusCode, 200, cUpdated.body)
      const cRemoved = await t.app.inject({
        method: 'DELETE',
        url: '/file/configuration/',
        headers: h,
        payload: { _id: configuration._id },
      })
      assert.equal(cRemoved.statusCode, 200, cRemoved.body)

      await until('every event at the owner and the viewer', () =>
        EVENTS.every((e) => received('owner', e).length === 1 && received('viewer', e).length === 1),
      )
      const checkers = Object.fromEntries(EVENTS.map((e) => [e, Compile(WEBHOOK_PAYLOADS[e])]))
      for (const event of EVENTS) {
        for (const who of ['owner', 'viewer'] as const) {
          const [body] = received(who, event)
          assert.ok(body)
          assert.deepEqual(Object.keys(body), ['file', 'event', 'data', 'owner', 'runTimestamp', 'uuid'])
          assert.ok(Value.Check(WebhookEnvelope, body))
          const checker = checkers[event]
          assert.ok(
            checker?.Check(body),
            `${event}: ${JSON.stringify([...(checker?.Errors(body) ?? [])].slice(0, 3))}`,
          )
          assert.ok(Value.Check(EVENT_DATA[event], body.data))
          assert.equal(body.file, m.fileId)
          assert.equal(body.event, event)
          assert.equal(body.owner, m[who].account.email)
          assert.equal(String(body.runTimestamp).length, 13)
        }
      }
      const one = (event: string): Record<string, unknown> => received('owner', event)[0]?.data ?? {}
      // attribute_updated: what was written, nulls included.
      assert.deepEqual(one('attribute_updated'), {
        user: { email: m.editor.account.email },
        nodeIdToAttributes: { n1: { color: 'red', old: null } },
      })
      // annotation events: the record; permissions an object, but an array inside annotation_updated.
      assert.deepEqual(one('annotation_created'), annotation)
      assert.ok(!Array.isArray(one('annotation_created').permissions))
      const au = one('annotation_updated') as { old: Record<string, unknown>; new: Record<string, unknown> }
      assert.deepEqual(Object.keys(au), ['old', 'new'])
      assert.deepEqual(au.old, { ...annotation, permissions: [annotation.permissions] })
      assert.equal(au.new.name, 'Pin 2')
      assert.equal(au.new.__v, 1)
      assert.ok(Array.isArray(au.new.permissions) && au.new.permissions.length === 1)
      assert.deepEqual(one('annotation_removed'), updated.json().annotation)
      // configuration events: no renderMode except in configuration_removed; no lastModificationDate at creation.
      const cc = one('configuration_created')
      assert.equal('renderMode' in cc, false)
      assert.equal('lastModificationDate' in cc, false)
      assert.equal(cc.lastModificationAuthor, null)
      const { renderMode: _r, ...createdWithoutRenderMode } = configuration
      assert.deepEqual(cc, createdWithoutRenderMode)
      const cu = one('configuration_updated') as {
        old: Record<string, unknown>
        new: Record<string, unknown>
      }
      assert.deepEqual(Object.keys(cu), ['old', 'new'])
      assert.equal('renderMode' in cu.old || 'renderMode' in cu.new, false)
      assert.equal('lastModificationDate' in cu.old, false)
      assert.ok(Number.isInteger(cu.new.lastModificationDate))
      assert.equal(cu.new.lastModificationAuthor, m.editor.account.email)
      assert.equal(cu.new.zNear, 0.5)
      const cr = one('configuration_removed')
      assert.equal(cr.renderMode, 'phong')
      assert.deepEqual(cr, cRemoved.json().configuration)
      // A stranger's webhooks never hear about the file.
      for (const event of EVENTS) assert.equal(received('stranger', event).length, 0)
    })

    test('records hidden from the viewer by readPermissions are not announced to the viewer', async () => {
      const h = m.owner.headers
      const before = received('owner', 'annotation_created').length
      const hidden = await post('/annotation/create/', h, {
        file: m.fileId,
        name: 'Private',
        readPermissions: [m.editor.account.email],
      })
      assert.equal(hidden.statusCode, 200)
      const untitled = await post('/annotation/create/', h, {
        file: m.fileId,
        name: 'No title for you',
        permissions: { readTitle: [m.editor.account.email] },
      })
      assert.equal(untitled.statusCode, 200)
      const cfg = await post('/file/configuration/', h, {
        file: m.fileId,
        readPermissions: [m.editor.account.email],
      })
      assert.equal(cfg.statusCode, 200)
      await until(
        'owner deliveries',
        () =>
          received('owner', 'annotation_created').length === before + 2 &&
          received('owner', 'configuration_created').length === 2,
      )
      // The same commit queued the viewer's deliveries, if any: give the worker time to send them.
      await new Promise((resolve) => setTimeout(resolve, 500))
      const viewerNames = received('viewer', 'annotation_created').map((e) => e.data.name)
      assert.ok(!viewerNames.includes('Private') && !viewerNames.includes('No title for you'))
      assert.equal(received('viewer', 'configuration_created').length, 1)
      for (const event of EVENTS) assert.equal(received('stranger', event).length, 0)
    })
  })
}

for (const dialect of dialects()) {
  describe(`events with S3 blobs on ${dialect.name}`, () => {
    let t: TestApp
    let s3: Awaited<ReturnType<typeof startS3>>
    const rx = new Receiver()
    before(async () => {
      await rx.start()
      s3 = await startS3()
      t = await startApp(dialect, {
        licenses: 1000,
        webhookRetryScheduleMs: [0, 200, 200],
        storageUrl: s3.storageUrl,
      })
    })
    after(async () => {
      await t.close()
      await s3.close()
      await rx.stop()
    })

    test('an upload to S3 and the resources of that file reach the receiver in the spec shapes', async () => {
      // The bucket name only: the endpoint (here a loopback address) is never shown (batch 3).
      assert.equal(t.app.ctx.blobs.bucket, 's3://tessera')
      const owner = await signedIn(t.app, 's3owner')
      const events = ['file_uploaded', ...EVENTS] as const
      for (const event of events) {
        await register(t.app, owner.authToken, event, `${rx.base}/s3/${event}`)
      }
      const file = await uploadFile(t.app, owner.headers, {
        name: 'part.stl',
        data: Buffer.from('solid s3\n'),
      })
      assert.equal(file.bucket, t.app.ctx.blobs.bucket)
      const h = { ...owner.headers, 'content-type': 'application/json' }
      const call = async (method: 'POST' | 'DELETE', url: string, payload: object) => {
        const res = await t.app.inject({ method, url, headers: h, payload: JSON.stringify(payload) })
        assert.equal(res.statusCode, 200, `${method} ${url} ${res.body}`)
        return res.json() as Record<string, Record<string, unknown>>
      }
      await call('POST', '/scene/attributes', { file: file._id, nodeIdToAttributes: { n1: { a: 1 } } })
      const annotation = (await call('POST', '/annotation/create/', { file: file._id, name: 'On S3' }))
        .annotation
      await call('POST', '/annotation/update/', { _id: annotation?._id, name: 'Still on S3' })
      await call('DELETE', `/annotation/delete/?_id=${annotation?._id}`, {})
      const configuration = (await call('POST', '/file/configuration/', { file: file._id, name: 'V' }))
        .configuration
      await call('POST', '/file/configuration/', { _id: configuration?._id, zNear: 0.25 })
      await call('DELETE', '/file/configuration/', { _id: configuration?._id })

      const received = (event: string) => rx.envelopes(`/s3/${event}`) as Envelope[]
      await until(
        'every event from the S3-backed file',
        () => events.every((e) => received(e).length === 1),
        15_000,
      )
      for (const event of events) {
        const [body] = received(event)
        assert.ok(body)
        const checker = Compile(WEBHOOK_PAYLOADS[event])
        assert.ok(checker.Check(body), `${event}: ${JSON.stringify([...checker.Errors(body)].slice(0, 3))}`)
        assert.equal(body.file, file._id)
        assert.equal(body.event, event)
        assert.equal(body.owner, owner.account.email)
      }
      // file_uploaded: data is the file record, and its bucket names the S3 store.
      const uploaded = received('file_uploaded')[0]?.data
      // The event carries the spec's record: the upload's answer without the API's extra fields.
      const {
        progress: _progress,
        thumbnailUrl: _thumbnailUrl,
        role: _role,
        capabilities: _capabilities,
        revisionNumber: _revisionNumber,
        ...record
      } = file
      assert.deepEqual(uploaded, record)
      assert.equal(uploaded?.bucket, t.app.ctx.blobs.bucket)
      assert.deepEqual(received('annotation_created')[0]?.data, annotation)
      assert.equal(received('annotation_removed')[0]?.data.name, 'Still on S3')
      assert.equal(received('configuration_removed')[0]?.data._id, configuration?._id)
    })
  })
}

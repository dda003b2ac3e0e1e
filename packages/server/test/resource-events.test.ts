// The seven events of scene attributes, annotations and configurations, from real calls, received by
// a real loopback receiver: every body is validated against the exported payload schemas
// (webhooks/payloads.ts) and checked for the spec's quirks. Who receives what: the owner's and a
// viewer's webhooks hear about the file, a stranger's never, and an annotation or configuration hidden
// from the viewer by its readPermissions is not announced to the viewer. Every dialect.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Compile } from 'typebox/compile'
import { Value } from 'typebox/value'
import {
  EVENT_DATA,
  type EventName,
  WEBHOOK_PAYLOADS,
  WebhookEnvelope,
} from '../src/modules/webhooks/index.ts'
import { type Team, team } from './support/file-rows.ts'
import { Receiver, registerWebhook, until } from './support/files.ts'
import { dialects, startApp, type TestApp } from './support/harness.ts'

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
        await registerWebhook(t.app, m.owner.authToken, event, `${rx.base}/owner/${event}`)
        await registerWebhook(t.app, m.viewer.authToken, event, `${rx.base}/viewer/${event}`)
        await registerWebhook(t.app, m.stranger.authToken, event, `${rx.base}/stranger/${event}`)
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

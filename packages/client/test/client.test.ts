// The SDK against a real `tessera serve` (SQLite, and PostgreSQL when TESSERA_TEST_DATABASE_URL is
// set): connect, list, upload a real IFC with progress, wait for the conversion, download the GLB,
// scene tree, attributes, annotations, configurations, a webhook whose deliveries a receiver verifies.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { after, before, describe, test } from 'node:test'
import { Tessera, TesseraError, type UploadProgress, uploadPath } from '@tessera/client/node'
import { SMALL_HOUSE, until, VerifyingReceiver } from './support/receiver.ts'
import { type Instance, startTessera, targetNames } from './support/server.ts'

const SECRET = 'q4Vd-7hYz2KpX9mRw3Ls'

async function bytes(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = []
  for await (const chunk of stream) chunks.push(chunk)
  return Buffer.concat(chunks)
}

for (const dialect of targetNames()) {
  describe(`@tessera/client on ${dialect}`, () => {
    let server: Instance
    let tessera: Tessera
    const receiver = new VerifyingReceiver(SECRET)

    before(async () => {
      await receiver.start()
      server = await startTessera(dialect)
      tessera = await Tessera.connect({ url: server.url, ...server.admin })
    })
    after(async () => {
      await tessera?.close().catch(() => {})
      await server?.stop()
      await receiver.stop()
    })

    test('connect opens a kept-alive session; an empty account lists nothing', async () => {
      assert.ok(tessera.authToken && tessera.sessionToken)
      const ttl = (tessera.expiresAt?.getTime() ?? 0) - Date.now()
      assert.ok(ttl > 3_000_000 && ttl <= 3_600_000, `session TTL ${ttl}`)
      assert.ok((await tessera.keepAlive()).getTime() >= (tessera.expiresAt?.getTime() ?? 0) - 1000)
      assert.deepEqual(await tessera.files.list(), [])
    })

    test('upload from a path with progress, wait until ready, GLB, scene tree, attributes', async () => {
      const webhook = await tessera.webhooks.create({
        event: 'attribute_updated',
        url: receiver.url,
        secretToken: SECRET,
      })
      const progress: UploadProgress[] = []
      const original = await readFile(SMALL_HOUSE)
      const file = await uploadPath(tessera, SMALL_HOUSE.pathname, {
        parent: '/models/site',
        onProgress: (p) => progress.push(p),
      })
      assert.equal(file.key, '/models/site/small-house.ifc')
      assert.equal(file.state, 'queued')
      assert.deepEqual(progress.at(-1), { loaded: original.length, total: original.length })
      assert.deepEqual(
        (await tessera.files.list('/models/site')).map((f) => f._id),
        [file._id],
      )
      assert.deepEqual(await tessera.files.list(), [])

      const ready = await tessera.files.waitUntilReady(file._id, { timeoutMs: 120_000 })
      assert.equal(ready.state, 'ready')
      const glb = await bytes(await tessera.files.downloadOptimized(file._id))
      assert.equal(glb.subarray(0, 4).toString('latin1'), 'glTF')
      const received: Array<{ loaded: number; total: number | undefined }> = []
      const onProgress = (p: { loaded: number; total: number | undefined }) => received.push(p)
      assert.deepEqual(await bytes(await tessera.files.download(file._id, { onProgress })), original)
      assert.deepEqual(received.at(-1), { loaded: original.length, total: original.length })
      const head = await bytes(await tessera.files.download(file._id, { range: 'bytes=0-9' }))
      assert.deepEqual(head, original.subarray(0, 10))

      const tree = await tessera.files.sceneTree(file._id)
      const node = tree[0]?.id
      assert.ok(node, 'the tree has a root')
      const written = await tessera.attributes.set(file._id, { [node]: { status: 'approved', floor: 2 } })
      assert.deepEqual(written[node], { status: 'approved', floor: 2 })
      assert.deepEqual(await tessera.attributes.all(file._id), { [node]: { status: 'approved', floor: 2 } })
      await assert.rejects(
        tessera.attributes.set(file._id, { nope: { a: 1 } }),
        (e: TesseraError) => e.code === 'UNKNOWN_NODE',
      )

      // The attribute write reached the receiver, verified; the delivery log shows it.
      const delivered = await until('a verified delivery', () =>
        receiver.verified.find((v) => v.envelope.event === 'attribute_updated'),
      )
      assert.equal(delivered.envelope.file, file._id)
      if (delivered.envelope.event === 'attribute_updated')
        assert.deepEqual(delivered.envelope.data.nodeIdToAttributes[node], { status: 'approved', floor: 2 })
      const page = await until('a succeeded delivery', async () => {
        const p = await tessera.webhooks.deliveries(webhook.id, { status: 'succeeded' })
        return p.deliveries.length > 0 && p
      })
      const detail = await tessera.webhooks.delivery(webhook.id, page.deliveries[0]?._id ?? '')
      assert.equal(detail.attempts.length, 1)
      await tessera.webhooks.retry(webhook.id, detail._id)
      await until(
        'the retried delivery',
        () => receiver.verified.filter((v) => v.envelope.uuid === delivered.envelope.uuid).length >= 2,
      )
      const probe = await tessera.webhooks.test(webhook.id)
      await until('the test delivery', () => receiver.verified.find((v) => v.test))
      assert.equal(probe.test, true)
      assert.equal((await tessera.webhooks.recover(webhook.id, Date.now() - 60_000)).reenabled, false)
      assert.deepEqual(receiver.refused, [])
    })

    test('a new revision, annotations, configurations, shares, webhooks CRUD; errors are typed', async () => {
      const house = await readFile(SMALL_HOUSE)
      const blob = new Blob([house])
      const first = await tessera.files.upload(blob, { name: 'rev.ifc' })
      const changed = Buffer.concat([house, Buffer.from('\n/* revision 2 */\n')])
      const second = await tessera.files.upload(new Blob([changed]), { name: 'rev.ifc' })
      assert.equal(second._id, first._id)
      assert.equal(second.__v, first.__v + 1)
      const revisions = await tessera.files.revisions(first._id)
      assert.deepEqual(
        revisions.map((r) => [r.__v, r.current, r.size]),
        [
          [second.__v, true, changed.length],
          [first.__v, false, house.length],
        ],
      )
      assert.deepEqual(await bytes(await tessera.files.downloadRevision(first._id, first.__v)), house)
      await assert.rejects(
        tessera.files.downloadRevision(first._id, 999),
        (e: TesseraError) => e.status === 404 && e.code === 'NOT_FOUND',
      )

      const annotation = await tessera.annotations.create({ file: first._id, name: 'Door', content: 'check' })
      const updated = await tessera.annotations.update({
        _id: annotation._id,
        __v: annotation.__v,
        name: 'Front door',
      })
      assert.equal(updated.name, 'Front door')
      await assert.rejects(
        tessera.annotations.update({ _id: annotation._id, __v: annotation.__v, name: 'stale' }),
        (e: TesseraError) =>
          e instanceof TesseraError &&
          e.status === 409 &&
          e.code === 'CONFLICT' &&
          typeof e.requestId === 'string',
      )
      assert.deepEqual(
        (await tessera.annotations.list(first._id)).map((a) => a.name),
        ['Front door'],
      )
      const reply = await tessera.discussions.reply(annotation._id, 'Which frame?')
      assert.equal((await tessera.discussions.edit(reply._id, 'Which door frame?')).text, 'Which door frame?')
      assert.deepEqual(
        (await tessera.discussions.list(annotation._id)).map((r) => [r.seq, r.text]),
        [[1, 'Which door frame?']],
      )
      // Your own replies are never unread; the marker still moves.
      assert.deepEqual(
        (await tessera.discussions.summary(first._id)).map((d) => [d.annotation, d.replies, d.unread]),
        [[annotation._id, 1, 0]],
      )
      assert.equal((await tessera.discussions.markRead(annotation._id)).readUpTo, 1)
      assert.equal((await tessera.discussions.delete(reply._id))._id, reply._id)
      assert.equal((await tessera.annotations.delete(annotation._id))._id, annotation._id)

      const config = await tessera.configurations.save({ file: first._id, name: 'Day' })
      const renamed = await tessera.configurations.save({ _id: config._id, name: 'Night' })
      assert.equal(renamed.name, 'Night')
      assert.equal((await tessera.configurations.list(first._id)).length, 1)
      await tessera.configurations.delete(config._id)

      await server.createAccount('viewer', 'a long password for the viewer')
      const shared = await tessera.files.share(first._id, 'viewer@example.com', 'viewer')
      assert.deepEqual(shared.roles, [{ email: 'viewer@example.com', role: 'viewer' }])
      assert.deepEqual((await tessera.files.unshare(first._id, 'viewer@example.com')).roles, [])

      const hook = await tessera.webhooks.create({
        event: 'file_uploaded',
        url: `${receiver.url}/x`,
        secretToken: SECRET,
      })
      assert.equal(hook.secretToken, undefined, 'a given secret is not echoed')
      // Without one the server generates it and answers it this once.
      const generated = await tessera.webhooks.create({ event: 'file_optimized', url: `${receiver.url}/g` })
      assert.match(generated.secretToken ?? '', /^whsec_[A-Za-z0-9+/]{43}=$/)
      assert.equal((await tessera.webhooks.get(generated.id)).attributes.disabled, false)
      assert.ok(!JSON.stringify(await tessera.webhooks.list()).includes(generated.secretToken ?? '-'))
      await tessera.webhooks.delete(generated.id)
      assert.equal((await tessera.webhooks.update(hook.id, { disabled: true })).attributes.disabled, true)
      assert.ok((await tessera.webhooks.list()).some((w) => w.id === hook.id))
      await tessera.webhooks.delete(hook.id)
      await assert.rejects(
        tessera.webhooks.get(hook.id),
        (e: TesseraError) => e.status === 404 && e.code === 'NOT_FOUND',
      )

      await tessera.files.delete(first._id)
      await assert.rejects(tessera.files.get(first._id), (e: TesseraError) => e.code === 'NOT_FOUND')
      const controller = new AbortController()
      const pending = await tessera.files.upload(blob, { name: 'wait.ifc' })
      setTimeout(() => controller.abort(), 50)
      await assert.rejects(
        tessera.files.waitUntilReady(pending._id, { signal: controller.signal }),
        (e: TesseraError) => e.code === 'ABORTED',
      )
    })
  })
}

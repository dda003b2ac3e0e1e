// Blob storage drivers: the local filesystem and S3 (against a real s3rver on loopback).
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { readdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { after, before, describe, test } from 'node:test'
import { type BlobStore, openBlobStore } from '../../src/platform/blobs/index.ts'
import { tempDir } from '../support/harness.ts'
import { startS3 } from '../support/s3.ts'

const drivers: Array<{
  name: string
  open(): Promise<{ store: BlobStore; close(): Promise<void>; root?: string }>
}> = [
  {
    name: 'filesystem',
    async open() {
      const root = tempDir('tessera-blobs-')
      const store = await openBlobStore(`file://${root}`)
      return {
        store,
        root,
        async close() {
          await store.close()
          rmSync(root, { recursive: true, force: true })
        },
      }
    },
  },
  {
    name: 's3',
    async open() {
      const s3 = await startS3()
      const store = await openBlobStore(s3.storageUrl)
      return {
        store,
        async close() {
          await store.close()
          await s3.close()
        },
      }
    },
  },
]

/** A stream that yields `chunks` buffers, then fails if `failAfter` is set. */
function source(chunks: Buffer[], failAfter = false): Readable {
  return Readable.from(
    (async function* () {
      for (const chunk of chunks) yield chunk
      if (failAfter) throw new Error('client went away')
    })(),
  )
}

for (const driver of drivers) {
  describe(`blob store: ${driver.name}`, () => {
    let opened: Awaited<ReturnType<(typeof drivers)[number]['open']>>
    before(async () => {
      opened = await driver.open()
    })
    after(() => opened.close())

    test('put streams, measures and hashes; get reads whole and ranges; delete removes', async () => {
      const data = randomBytes(3 * 1024 * 1024 + 17)
      const chunks = Array.from({ length: 13 }, (_, i) => data.subarray(i * 256 * 1024, (i + 1) * 256 * 1024))
      const put = await opened.store.put('files/a/original', source(chunks.filter((c) => c.length > 0)))
      assert.equal(put.size, data.length)
      assert.equal(put.sha256, createHash('sha256').update(data).digest('hex'))
      assert.equal(await opened.store.size('files/a/original'), data.length)
      const whole: Buffer[] = []
      for await (const chunk of await opened.store.get('files/a/original')) whole.push(chunk as Buffer)
      assert.ok(Buffer.concat(whole).equals(data))
      const part = await buffer(await opened.store.get('files/a/original', { start: 10, end: 19 }))
      assert.ok(part.equals(data.subarray(10, 20)))
      await opened.store.delete('files/a/original')
      assert.equal(await opened.store.size('files/a/original'), null)
    })

    test('an oversize write fails with PAYLOAD_TOO_LARGE and leaves nothing', async () => {
      await assert.rejects(
        opened.store.put('files/big/original', source([randomBytes(4096), randomBytes(4096)]), {
          maxBytes: 5000,
        }),
        (error: { code?: string }) => error.code === 'PAYLOAD_TOO_LARGE',
      )
      assert.equal(await opened.store.size('files/big/original'), null)
      if (opened.root) assert.deepEqual(readdirSync(path.join(opened.root, '.tmp')), [])
    })

    test('a write whose source fails leaves nothing', async () => {
      await assert.rejects(opened.store.put('files/broken/original', source([randomBytes(1000)], true)))
      assert.equal(await opened.store.size('files/broken/original'), null)
    })

    test('unsafe keys are refused', async () => {
      await assert.rejects(opened.store.put('../../escape', source([Buffer.from('x')])), /unsafe blob key/)
    })
  })
}

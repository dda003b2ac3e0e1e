// BCF through the SDK against a real `tessera serve` (SQLite, and PostgreSQL when
// TESSERA_TEST_DATABASE_URL is set), on two uploads of the same IFC: `files.exportBcf` gives the
// .bcfzip and its name, `files.importBcf` brings it into the other upload (the report; the same
// again changes nothing), a viewer and a link's guest export but may not import, a body that is no
// zip is BCF_INVALID and one past 32 MiB PAYLOAD_TOO_LARGE. Then, against a scripted server: an
// import whose connection drops is sent again, the same bytes with the same Idempotency-Key.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { Tessera, TesseraError, TesseraLink } from '@tessera/client'
import { type Instance, startTessera, targetNames } from './support/server.ts'

const HOUSE_IFC = readFileSync(
  new URL(import.meta.resolve('@tessera/server/test/fixtures/conversion/house-properties.ifc')),
)
/** A wall's IFC GlobalId in the house: the annotation's node, named by it in the BCF. */
const WALL = '2O2Fr$t4X7Zf8NOew3FLOH'
const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04]

for (const dialect of targetNames()) {
  describe(`BCF with @tessera/client on ${dialect}`, () => {
    let server: Instance
    let tessera: Tessera
    let fileA = ''
    let fileB = ''
    let exported: Uint8Array = new Uint8Array()
    /** Method, path and Idempotency-Key of each call the SDK made. */
    const calls: Array<{ method: string; path: string; key: string | null }> = []

    async function converted(name: string): Promise<string> {
      const file = await tessera.files.upload(new Blob([HOUSE_IFC]), { name, parent: '/bcf' })
      await tessera.files.waitUntilReady(file._id, { timeoutMs: 120_000 })
      return file._id
    }

    before(async () => {
      server = await startTessera(dialect)
      const recording: typeof fetch = (input, init) => {
        const request = input instanceof Request ? input : new Request(String(input), init)
        const { pathname } = new URL(request.url)
        calls.push({ method: request.method, path: pathname, key: request.headers.get('idempotency-key') })
        return globalThis.fetch(input, init)
      }
      tessera = await Tessera.connect({ url: server.url, ...server.admin, fetch: recording })
      fileA = await converted('house-a.ifc')
      fileB = await converted('house-b.ifc')
      const { nodeIdToProperties } = await tessera.files.properties(fileA)
      const wall = Object.entries(nodeIdToProperties).find(([, groups]) => groups.IFC?.GlobalId === WALL)?.[0]
      assert.ok(wall, 'the wall is in the model')
      const note = await tessera.annotations.create({
        file: fileA,
        name: 'Crack in the wall',
        content: 'Seen on site.',
        cameraX: 8,
        cameraY: 5,
        cameraZ: 9,
        targets: [{ type: 'point', position: [1, 1.5, 0], node: wall, cameraTarget: [1, 1, -1] }],
      })
      await tessera.discussions.reply(note._id, 'Checked: it is a crack.')
      await tessera.configurations.save({ file: fileA, name: 'The wall', selectedNodes: [wall] })
    })
    after(async () => {
      await tessera?.close().catch(() => {})
      await server?.stop()
    })

    test('exportBcf: the .bcfzip and the name the server gives it', async () => {
      const bcf = await tessera.files.exportBcf(fileA)
      assert.equal(bcf.filename, 'house-a.bcfzip')
      assert.ok(bcf.bytes instanceof Uint8Array)
      assert.deepEqual([...bcf.bytes.subarray(0, 4)], ZIP_MAGIC)
      exported = bcf.bytes
    })

    test('importBcf into the other upload: the report, sent with a key; again, nothing new', async () => {
      calls.length = 0
      const report = await tessera.files.importBcf(fileB, exported)
      assert.deepEqual(report, {
        version: '3.0',
        topics: 2,
        annotations: [report.annotations[0]],
        configurations: [report.configurations[0]],
        comments: 1,
        unchanged: 0,
        unknownComponents: [],
        notes: report.notes,
      })
      assert.ok(!('success' in report))
      const posts = calls.filter((c) => c.method === 'POST' && c.path === `/file/${fileB}/bcf`)
      assert.equal(posts.length, 1)
      assert.match(posts[0]?.key ?? '', /^[0-9a-f-]{36}$/, 'an Idempotency-Key of its own')
      const notes = await tessera.annotations.list(fileB)
      assert.deepEqual(
        notes.map((n) => [n._id, n.name]),
        [[report.annotations[0], 'Crack in the wall']],
      )
      // A Blob and an ArrayBuffer of the same bytes: the topics are held already.
      for (const zip of [new Blob([exported.slice()]), exported.slice().buffer]) {
        const again = await tessera.files.importBcf(fileB, zip)
        assert.deepEqual(
          [again.annotations, again.configurations, again.comments, again.unchanged],
          [[], [], 0, 2],
        )
      }
    })

    test('a viewer and a guest export; importing is 403 for them', async () => {
      await server.createAccount('viewer', 'a long password for the viewer')
      await tessera.files.share(fileB, 'viewer@example.com', 'viewer')
      const viewer = await Tessera.connect({
        url: server.url,
        username: 'viewer',
        password: 'a long password for the viewer',
      })
      try {
        assert.equal((await viewer.files.exportBcf(fileB)).filename, 'house-b.bcfzip')
        await assert.rejects(viewer.files.importBcf(fileB, exported), { status: 403, code: 'FORBIDDEN' })
      } finally {
        await viewer.close()
      }
      const { token } = await tessera.links.create(fileB)
      const guest = await TesseraLink.open({ url: server.url, token: token ?? '' })
      try {
        assert.deepEqual([...(await guest.files.exportBcf(fileB)).bytes.subarray(0, 4)], ZIP_MAGIC)
        await assert.rejects(guest.files.importBcf(fileB, exported), { status: 403, code: 'LINK_READ_ONLY' })
      } finally {
        guest.close()
      }
    })

    test('no zip: BCF_INVALID; past 32 MiB: PAYLOAD_TOO_LARGE; no such file: NOT_FOUND', async () => {
      const refused = await tessera.files
        .importBcf(fileB, new TextEncoder().encode('not a zip at all'))
        .catch((error: unknown) => error)
      assert.ok(refused instanceof TesseraError)
      assert.deepEqual([refused.status, refused.code], [400, 'BCF_INVALID'])
      assert.match(refused.detail, /zip/)
      calls.length = 0
      await assert.rejects(tessera.files.importBcf(fileB, new Uint8Array(32 * 1024 * 1024 + 1)), {
        status: 413,
        code: 'PAYLOAD_TOO_LARGE',
      })
      assert.equal(calls.length, 0, 'refused before sending: the server would close on it')
      const nowhere = '000000000000000000000000'
      await assert.rejects(tessera.files.exportBcf(nowhere), { status: 404, code: 'NOT_FOUND' })
      await assert.rejects(tessera.files.importBcf(nowhere, exported), { status: 404, code: 'NOT_FOUND' })
    })
  })
}

describe('BCF import against a scripted server', () => {
  test('a dropped connection: sent again, the same bytes and Idempotency-Key', async () => {
    const seen: Array<{ key: string | undefined; type: string | undefined; body: Buffer }> = []
    const server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        const key = req.headers['idempotency-key']
        seen.push({
          key: typeof key === 'string' ? key : undefined,
          type: req.headers['content-type'],
          body: Buffer.concat(chunks),
        })
        if (seen.length === 1) return req.socket.destroy()
        const report = {
          version: '2.1',
          topics: 0,
          annotations: [],
          configurations: [],
          comments: 0,
          unchanged: 0,
          unknownComponents: [],
          notes: [],
        }
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ success: true, ...report }))
      })
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const tessera = await Tessera.connect({ url, authToken: 'token', session: false })
      const zip = new Uint8Array([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)])
      const report = await tessera.files.importBcf('0123456789abcdef01234567', new Blob([zip], { type: '' }))
      assert.equal(report.version, '2.1')
      assert.equal(seen.length, 2)
      assert.ok(seen[0]?.key && seen[0].key === seen[1]?.key)
      for (const attempt of seen) {
        assert.equal(attempt.type, 'application/zip')
        assert.deepEqual([...attempt.body], [...zip])
      }
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })
})

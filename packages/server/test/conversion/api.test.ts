// Conversions end to end, through the API on every dialect: an upload is claimed by the in-process
// worker, converted in a child process and becomes `ready` with a valid GLB, a scene tree and
// `file_optimized`; broken uploads (that look like a supported format) end in `error` with
// `file_optimization_failed` and the worker carries on (unsupported ones are refused at upload:
// upload-refusal.test.ts); revisions convert again; crashed conversions are retried a bounded
// number of times; the time budget holds.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { Compile } from 'typebox/compile'
import { WEBHOOK_PAYLOADS } from '../../src/contract/index.ts'
import { MAX_ATTEMPTS } from '../../src/modules/conversion/index.ts'
import { problemOf, signedIn } from '../support/api.ts'
import { objTwoParts } from '../support/conversion-models.ts'
import { postForm, uploadFile } from '../support/files.ts'
import { assertValidGlb, packageFile, pmndrsGlb } from '../support/gltf.ts'
import { dialects, LogCapture, startApp, type TestApp } from '../support/harness.ts'
import { stlCube, zipBomb } from '../support/models.ts'
import { ok, Receiver, register, sleep, until } from '../support/receiver.ts'
import { startS3 } from '../support/s3.ts'

// DEBUG_LOG=1 prints the app's error log lines after the suite (they explain a 500).
const debugLog = process.env.DEBUG_LOG ? new LogCapture() : undefined
type User = Awaited<ReturnType<typeof signedIn>>
interface Envelope {
  file: string
  event: string
  data: Record<string, unknown> & { _id: string; __v: number; state: string; error: string }
}
interface TreeNode {
  id: string
  name: string
  children: TreeNode[]
}

function flatten(nodes: TreeNode[]): TreeNode[] {
  return nodes.flatMap((node) => [node, ...flatten(node.children)])
}

const payloadChecks = {
  file_optimized: Compile(WEBHOOK_PAYLOADS.file_optimized),
  file_optimization_failed: Compile(WEBHOOK_PAYLOADS.file_optimization_failed),
}

/** The delivered body is exactly the spec's envelope with the spec's file record as `data`. */
function assertPayload(event: keyof typeof payloadChecks, body: Envelope): void {
  assert.deepEqual(Object.keys(body), ['file', 'event', 'data', 'owner', 'runTimestamp', 'uuid'])
  const check = payloadChecks[event]
  assert.ok(check.Check(body), `${event}: ${JSON.stringify([...check.Errors(body)].slice(0, 3))}`)
  assert.equal(body.event, event)
}

async function pmndrsGlbBytes(): Promise<Buffer> {
  return Buffer.from(await pmndrsGlb('suzi'))
}

/** The webhook envelopes of `event` about `fileId` received so far. */
function envelopes(rx: Receiver, path: string, fileId: string): Envelope[] {
  return rx
    .at(path)
    .map((r) => JSON.parse(r.body) as Envelope)
    .filter((e) => e.file === fileId)
}

/** Waits for an envelope of `fileId` at revision `version` on `path`. */
function nextEnvelope(rx: Receiver, path: string, fileId: string, version = 0, ms = 60_000) {
  return until(
    `${path} for ${fileId} v${version}`,
    async () => envelopes(rx, path, fileId).find((e) => e.data.__v === version),
    ms,
  )
}

async function getJson(app: FastifyInstance, user: User, url: string) {
  const res = await app.inject({ method: 'GET', url, headers: user.headers })
  assert.equal(res.statusCode, 200, res.body)
  return res.json()
}

/** PIDs of this process's conversion children (child.ts). */
function conversionChildren(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
  return out
    .split('\n')
    .filter((line) => /conversion[/\\]child\.(ts|js)/.test(line))
    .map((line) => Number.parseInt(line.trim(), 10))
}

describe('conversions run off the API event loop', () => {
  test('converting the 10 MB Pterosaur_FDM.stl, a cheap authenticated GET keeps p99 < 50 ms', async (t) => {
    const [sqlite] = dialects()
    assert.ok(sqlite)
    const app = await startApp(sqlite, {}, { conversions: true })
    t.after(() => app.close())
    const user = await signedIn(app.app, 'p99')
    const base = await app.app.listen({ port: 0, host: '127.0.0.1' })
    const data = readFileSync(packageFile('node-stl', 'test/test_data/Pterosaur_FDM.stl'))
    assert.ok(data.length > 10_000_000)
    const file = await uploadFile(app.app, user.headers, { name: 'Pterosaur_FDM.stl', data })
    const state = () =>
      app.db.kysely.selectFrom('files').select('state').where('id', '=', file._id).executeTakeFirstOrThrow()
    const latencies: number[] = []
    let sawConverting = false
    for (;;) {
      const { state: now } = await state()
      if (now === 'converting') sawConverting = true
      if (now === 'ready' || now === 'error') break
      const started = performance.now()
      const res = await fetch(`${base}/file/${file._id}`, { headers: user.headers })
      await res.arrayBuffer()
      latencies.push(performance.now() - started)
      assert.equal(res.status, 200)
      await sleep(1)
    }
    const { state: final } = await state()
    assert.equal(final, 'ready')
    assert.ok(sawConverting)
    latencies.sort((a, b) => a - b)
    const p99 = latencies[Math.floor(latencies.length * 0.99)] ?? Number.POSITIVE_INFINITY
    t.diagnostic(
      `${latencies.length} GETs while converting; p50 ${latencies[latencies.length >> 1]?.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`,
    )
    assert.ok(latencies.length >= 100, `only ${latencies.length} samples`)
    assert.ok(p99 < 50, `p99 ${p99.toFixed(1)} ms`)
  })
})

for (const dialect of dialects()) {
  describe(`conversions through the API (${dialect.name})`, () => {
    let t: TestApp
    let user: User
    const rx = new Receiver()
    const OPTIMIZED = '/optimized'
    const FAILED = '/failed'

    before(async () => {
      await rx.start()
      t = await startApp(dialect, {}, { conversions: true, ...(debugLog ? { logStream: debugLog } : {}) })
      user = await signedIn(t.app, 'conv')
      await register(t.app, user.authToken, 'file_optimized', rx.on(OPTIMIZED, ok))
      await register(t.app, user.authToken, 'file_optimization_failed', rx.on(FAILED, ok))
    })
    after(async () => {
      await t.close()
      await rx.stop()
      if (debugLog) console.log(debugLog.lines.filter((l) => l.includes('"level":50')).join('\n'))
    })

    test('an STL upload becomes ready: valid GLB, scene tree, file_optimized, attributes by node ID', async () => {
      const file = await uploadFile(t.app, user.headers, {
        name: 'bracket.stl',
        data: stlCube('bracket', 0.05),
      })
      assert.equal(file.state, 'queued')
      const event = await nextEnvelope(rx, OPTIMIZED, file._id)
      assertPayload('file_optimized', event)
      // The spec's shape: `converting`, with the scene tree filled in.
      assert.equal(event.data.state, 'converting')
      const roots = event.data.sceneTreeRoots as string[]
      assert.ok(roots.length > 0)
      assert.equal((event.data.sceneTreeNames as string[]).length, roots.length)

      const { file: record } = await getJson(t.app, user, `/file/${file._id}`)
      assert.equal(record.state, 'ready')
      assert.equal(record.error, '')
      assert.deepEqual(record.sceneTreeRoots, roots)

      const { tree } = (await getJson(t.app, user, `/file/${file._id}/scene-tree`)) as { tree: TreeNode[] }
      assert.deepEqual(
        tree.map((n) => n.id),
        roots,
      )
      assert.deepEqual(
        tree.map((n) => n.name),
        event.data.sceneTreeNames,
      )

      const glb = await t.app.inject({
        method: 'GET',
        url: `/file/${file._id}/optimized`,
        headers: user.headers,
      })
      assert.equal(glb.statusCode, 200)
      assert.equal(glb.headers['content-type'], 'model/gltf-binary')
      assert.equal(glb.headers.etag, `"${createHash('sha256').update(glb.rawPayload).digest('hex')}"`)
      await assertValidGlb(glb.rawPayload, 'bracket.stl')
      // Every node of the tree is in the GLB, with its ID in extras.
      const json = glbJson(glb.rawPayload)
      const ids = new Set(json.nodes?.map((n) => n.extras?.tesseraId))
      for (const node of flatten(tree)) assert.ok(ids.has(node.id), `node ${node.id} in the GLB`)

      const nodeId = flatten(tree)[0]?.id ?? ''
      const write = await t.app.inject({
        method: 'POST',
        url: '/scene/attributes',
        headers: user.headers,
        payload: { file: file._id, nodeIdToAttributes: { [nodeId]: { material: 'steel' } } },
      })
      assert.equal(write.statusCode, 200, write.body)
      const unknown = await t.app.inject({
        method: 'POST',
        url: '/scene/attributes',
        headers: user.headers,
        payload: { file: file._id, nodeIdToAttributes: { 'no-such-node': { material: 'steel' } } },
      })
      assert.equal(problemOf(unknown).code, 'UNKNOWN_NODE')
    })

    test('the same input gives the same node IDs; a new revision converts again', async () => {
      const data = stlCube('gear', 0.02)
      const first = await uploadFile(t.app, user.headers, { name: 'gear.stl', data, parent: '/rev' })
      const v0 = await nextEnvelope(rx, OPTIMIZED, first._id, 0)
      const again = await uploadFile(t.app, user.headers, { name: 'gear.stl', data, parent: '/rev' })
      assert.equal(again._id, first._id)
      assert.equal(again.__v, 1)
      const v1 = await nextEnvelope(rx, OPTIMIZED, first._id, 1)
      assert.deepEqual(v1.data.sceneTreeRoots, v0.data.sceneTreeRoots)
      const { file: record } = await getJson(t.app, user, `/file/${first._id}`)
      assert.equal(record.state, 'ready')
      assert.equal(record.__v, 1)
    })

    test('a revision with another model serves its own scene tree (kept trees follow the asset)', async () => {
      const treeOf = async (id: string) =>
        ((await getJson(t.app, user, `/file/${id}/scene-tree`)) as { tree: TreeNode[] }).tree
      const first = await uploadFile(t.app, user.headers, {
        name: 'part.obj',
        data: Buffer.from(['o Only', 'v 0 0 0', 'v 1 0 0', 'v 0 1 0', 'f 1 2 3', ''].join('\n')),
        parent: '/trees',
      })
      const v0 = await nextEnvelope(rx, OPTIMIZED, first._id, 0)
      const before = await treeOf(first._id)
      assert.deepEqual(await treeOf(first._id), before) // answered again from the kept text
      assert.deepEqual(
        before.map((n) => n.id),
        v0.data.sceneTreeRoots,
      )
      await uploadFile(t.app, user.headers, {
        name: 'part.obj',
        data: Buffer.from(objTwoParts()),
        parent: '/trees',
      })
      await nextEnvelope(rx, OPTIMIZED, first._id, 1)
      const after = await treeOf(first._id)
      assert.notDeepEqual(after, before)
      const names = flatten(after).map((n) => n.name)
      assert.ok(names.includes('Left') && names.includes('Right'), names.join(', '))
    })

    test('broken uploads end in error with file_optimization_failed; the worker goes on', async () => {
      const refused = await postForm(t.app, user.headers, [
        { name: 'file', filename: 'notes.xyz', data: Buffer.from('not a model') },
      ])
      assert.equal(problemOf(refused).code, 'UNSUPPORTED_FORMAT')
      const cases: Array<{ name: string; data: Buffer; reason: RegExp }> = [
        // The GLB magic, then noise: passes the upload's sniffing, fails to parse.
        { name: 'noise.glb', data: Buffer.concat([Buffer.from('glTF'), randomBytes(4092)]), reason: /./ },
        { name: 'noise.stl', data: randomBytes(4096), reason: /./ },
        { name: 'empty.obj', data: Buffer.alloc(0), reason: /empty/ },
        { name: 'bomb.zip', data: zipBomb(), reason: /too much data/ },
        { name: 'truncated.glb', data: (await pmndrsGlbBytes()).subarray(0, 5000), reason: /truncated GLB/ },
      ]
      for (const c of cases) {
        const file = await uploadFile(t.app, user.headers, { name: c.name, data: c.data, parent: '/broken' })
        const event = await nextEnvelope(rx, FAILED, file._id)
        assertPayload('file_optimization_failed', event)
        assert.equal(event.data.state, 'error')
        assert.match(event.data.error, c.reason, c.name)
        assert.doesNotMatch(event.data.error, /\/tmp|at .*\.ts|Error:/, 'no paths or stacks in the reason')
        const { file: record } = await getJson(t.app, user, `/file/${file._id}`)
        assert.equal(record.state, 'error')
        assert.equal(record.error, event.data.error)
        const glb = await t.app.inject({
          method: 'GET',
          url: `/file/${file._id}/optimized`,
          headers: user.headers,
        })
        assert.equal(problemOf(glb).code, 'NOT_READY')
        const tree = await t.app.inject({
          method: 'GET',
          url: `/file/${file._id}/scene-tree`,
          headers: user.headers,
        })
        assert.equal(problemOf(tree).code, 'NOT_READY')
      }
      const good = await uploadFile(t.app, user.headers, {
        name: 'after.stl',
        data: stlCube('after'),
        parent: '/broken',
      })
      await nextEnvelope(rx, OPTIMIZED, good._id)
    })

    test(`a conversion whose process dies is retried, and ends in error after ${MAX_ATTEMPTS} attempts`, async () => {
      const file = await uploadFile(t.app, user.headers, {
        name: 'doomed.stl',
        data: stlCube('doomed'),
        parent: '/crash',
      })
      const killed = new Set<number>()
      while (killed.size < MAX_ATTEMPTS) {
        const pid = await until(
          'a conversion process to kill',
          async () => conversionChildren().find((p) => !killed.has(p)),
          30_000,
        )
        process.kill(pid, 'SIGKILL')
        killed.add(pid)
      }
      const event = await nextEnvelope(rx, FAILED, file._id, 0, 30_000)
      assert.match(event.data.error, new RegExp(`crashed ${MAX_ATTEMPTS} times`))
      const job = await t.db.kysely
        .selectFrom('jobs')
        .select(['state', 'attempts'])
        .where('file_id', '=', file._id)
        .executeTakeFirstOrThrow()
      assert.deepEqual(job, { state: 'failed', attempts: MAX_ATTEMPTS })
      assert.equal(envelopes(rx, OPTIMIZED, file._id).length, 0)
    })

    test('owner-scoped: another account gets 404 for the optimized model and the tree', async () => {
      const file = await uploadFile(t.app, user.headers, {
        name: 'private.stl',
        data: stlCube('p'),
        parent: '/scope',
      })
      await nextEnvelope(rx, OPTIMIZED, file._id)
      const stranger = await signedIn(t.app, 'stranger')
      for (const url of [`/file/${file._id}/optimized`, `/file/${file._id}/scene-tree`]) {
        const res = await t.app.inject({ method: 'GET', url, headers: stranger.headers })
        assert.equal(problemOf(res).code, 'NOT_FOUND')
      }
    })
  })

  describe(`conversions with S3 blob storage (${dialect.name})`, () => {
    test('the original is read from and the GLB written to s3rver; a revision replaces the GLB', async (t) => {
      const s3 = await startS3()
      const rx = new Receiver()
      await rx.start()
      const app = await startApp(dialect, { storageUrl: s3.storageUrl }, { conversions: true })
      t.after(async () => {
        await app.close()
        await rx.stop()
        await s3.close()
      })
      const user = await signedIn(app.app, 's3conv')
      await register(app.app, user.authToken, 'file_optimized', rx.on('/optimized', ok))
      const file = await uploadFile(app.app, user.headers, { name: 'part.stl', data: stlCube('part') })
      const first = await nextEnvelope(rx, '/optimized', file._id, 0)
      assertPayload('file_optimized', first)
      const glb = await app.app.inject({
        method: 'GET',
        url: `/file/${file._id}/optimized`,
        headers: user.headers,
      })
      assert.equal(glb.statusCode, 200)
      await assertValidGlb(glb.rawPayload, 'part.stl on S3')
      const keyOf = async () =>
        (
          await app.db.kysely
            .selectFrom('files')
            .select('optimized_key')
            .where('id', '=', file._id)
            .executeTakeFirstOrThrow()
        ).optimized_key
      const firstKey = await keyOf()
      await uploadFile(app.app, user.headers, { name: 'part.stl', data: stlCube('part', 2) })
      await nextEnvelope(rx, '/optimized', file._id, 1)
      const secondKey = await keyOf()
      assert.notEqual(secondKey, firstKey)
      // The first GLB is gone from the bucket once the second one is committed.
      assert.equal(await app.app.ctx.blobs.size(firstKey ?? ''), null)
      assert.ok(((await app.app.ctx.blobs.size(secondKey ?? '')) ?? 0) > 0)
    })
  })

  describe(`conversion time budget (${dialect.name})`, () => {
    test('a conversion past TESSERA_CONVERSION_TIMEOUT is killed and ends in error', async (t) => {
      const rx = new Receiver()
      await rx.start()
      const app = await startApp(dialect, { conversionTimeoutMs: 1000 }, { conversions: true })
      t.after(async () => {
        await app.close()
        await rx.stop()
      })
      const user = await signedIn(app.app, 'budget')
      await register(app.app, user.authToken, 'file_optimization_failed', rx.on('/failed', ok))
      // OpenCascade's BREP reader never returns on this truncation: only the budget ends it, however
      // fast the machine.
      const brep = readFileSync(packageFile('occt-import-js', 'test/testfiles/cax-if-brep/as1_pe_203.brep'))
      const data = brep.subarray(0, brep.length / 2)
      const file = await uploadFile(app.app, user.headers, { name: 'hangs.brep', data })
      const event = await nextEnvelope(rx, '/failed', file._id, 0, 30_000)
      assert.equal(event.data.error, 'the conversion took longer than its time budget (1s)')
      assert.deepEqual(conversionChildren(), [])
    })
  })
}

interface GltfJson {
  nodes?: Array<{ name?: string; extras?: { tesseraId?: string } }>
}

function glbJson(glb: Buffer): GltfJson {
  const length = glb.readUInt32LE(12)
  return JSON.parse(glb.subarray(20, 20 + length).toString('utf8')) as GltfJson
}

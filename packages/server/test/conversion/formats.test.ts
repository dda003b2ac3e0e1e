// Every supported format through the API, on every dialect: the upload is converted by the
// in-process worker and yields `file_optimized` with a scene tree, and the stored GLB passes the
// Khronos glTF-Validator. The corpus (test/support/conversion-corpus.ts) holds real models from npm
// packages and small generated ones; the 10 MB STL has its own test (conversion-api.test.ts).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { signedIn } from '../support/api.ts'
import { CORPUS } from '../support/conversion-corpus.ts'
import { uploadFile } from '../support/files.ts'
import { assertValidGlb, glbJson } from '../support/gltf.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { ok, Receiver, register, until } from '../support/receiver.ts'

// Converted elsewhere already, and slow enough to matter here.
const SKIP = new Set(['Pterosaur_FDM.stl', 'pterosaur.glb'])
const MODELS = CORPUS.filter((model) => !SKIP.has(model.name))

interface Envelope {
  file: string
  data: { sceneTreeRoots: string[]; sceneTreeNames: string[]; state: string }
}

for (const dialect of dialects()) {
  describe(`every format through the API (${dialect.name})`, () => {
    let t: TestApp
    let user: Awaited<ReturnType<typeof signedIn>>
    const rx = new Receiver()

    before(async () => {
      await rx.start()
      // Two conversions at once: one per core.
      t = await startApp(dialect, { conversionConcurrency: 2 }, { conversions: true })
      user = await signedIn(t.app, 'formats')
      await register(t.app, user.authToken, 'file_optimized', rx.on('/optimized', ok))
      await register(t.app, user.authToken, 'file_optimization_failed', rx.on('/failed', ok))
    })
    after(async () => {
      await t.close()
      await rx.stop()
    })

    test(`${MODELS.length} models: file_optimized, a scene tree, a valid GLB`, async () => {
      const DRACO_INPUTS = new Set(
        MODELS.filter((model) => model.source.includes('Draco')).map((m) => m.name),
      )
      const uploaded = new Map<string, string>()
      for (const model of MODELS) {
        const data = Buffer.from(await model.load())
        const file = await uploadFile(t.app, user.headers, { name: model.name, data, parent: '/corpus' })
        uploaded.set(file._id, model.name)
      }
      const seen = (path: string) => rx.at(path).map((r) => JSON.parse(r.body) as Envelope)
      await until(
        'every conversion to finish',
        async () => seen('/optimized').length + seen('/failed').length >= uploaded.size,
        240_000,
      )
      const failed = seen('/failed').map((e) => `${uploaded.get(e.file)}: ${JSON.stringify(e.data)}`)
      assert.deepEqual(failed, [])
      for (const event of seen('/optimized')) {
        const name = uploaded.get(event.file) ?? event.file
        assert.ok(event.data.sceneTreeRoots.length > 0, `${name}: scene tree roots`)
        const res = await t.app.inject({
          method: 'GET',
          url: `/file/${event.file}/optimized`,
          headers: user.headers,
        })
        assert.equal(res.statusCode, 200, name)
        await assertValidGlb(res.rawPayload, name)
        const json = glbJson(res.rawPayload)
        // meshopt; a Draco input may keep Draco when that is smaller (pipeline/encode.ts).
        const kept = DRACO_INPUTS.has(name) && json.extensionsUsed?.includes('KHR_draco_mesh_compression')
        assert.ok(kept || json.extensionsUsed?.includes('EXT_meshopt_compression'), `${name}: meshopt`)
        const tree = await t.app.inject({
          method: 'GET',
          url: `/file/${event.file}/scene-tree`,
          headers: user.headers,
        })
        assert.deepEqual(
          (tree.json() as { tree: Array<{ id: string }> }).tree.map((n) => n.id),
          event.data.sceneTreeRoots,
          name,
        )
      }
    })
  })
}

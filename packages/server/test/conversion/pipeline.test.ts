// The pure conversion pipeline (convertModel): every input format, zip uploads, optimization that
// keeps named nodes, stable node IDs, and clear errors for broken input. Real models shipped inside
// installed npm packages plus small ones generated here; every GLB written is checked by the Khronos
// glTF-Validator.
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { describe, test } from 'node:test'
import { Document, NodeIO } from '@gltf-transform/core'
import { strToU8, zipSync } from 'fflate'
import sharp from 'sharp'
import { type ConvertOptions, convertModel } from '../../src/modules/conversion/pipeline/convert.ts'
import {
  ConversionError,
  type ConversionResult,
  type TreeNode,
} from '../../src/modules/conversion/pipeline/types.ts'
import * as generated from '../support/conversion-models.ts'
import { assertValidGlb, glbImage, glbJson, pmndrsGlb, readPackageFile } from '../support/gltf.ts'

async function convertValid(
  name: string,
  bytes: Uint8Array,
  options?: ConvertOptions,
): Promise<ConversionResult> {
  const result = await convertModel({ name, bytes }, undefined, options)
  await assertValidGlb(result.glb, name)
  const json = glbJson(result.glb)
  // meshopt, unless a Draco input came out smaller re-encoded with Draco (the smallest wins).
  const { chosen, sizes } = result.stats.encoding
  const compression = chosen === 'draco' ? 'KHR_draco_mesh_compression' : 'EXT_meshopt_compression'
  assert.ok(json.extensionsUsed?.includes(compression), `${name}: ${chosen}-compressed`)
  assert.equal(result.glb.byteLength, Math.min(...Object.values(sizes)), `${name}: the smallest candidate`)
  // Every node of the viewed scene carries its ID, and the tree lists exactly those IDs.
  const stamped = (json.nodes ?? []).map((node) => node.extras?.tesseraId).filter((id) => id !== undefined)
  assert.deepEqual(new Set(stamped), new Set(treeIds(result.tree)), `${name}: node extras match the tree`)
  assert.equal(result.stats.outputBytes, result.glb.byteLength)
  assert.equal(result.stats.inputBytes, bytes.byteLength)
  assert.equal(result.stats.nodes, treeIds(result.tree).length)
  return result
}

function treeIds(tree: readonly TreeNode[]): string[] {
  return tree.flatMap((node) => [node.id, ...treeIds(node.children)])
}

function treeNames(tree: readonly TreeNode[]): unknown[] {
  return tree.map((node) => (node.children.length ? [node.name, treeNames(node.children)] : node.name))
}

/** The documented ID scheme, written out independently of the implementation. */
function expectedId(parentId: string, name: string, k: number): string {
  return createHash('sha256').update(`${parentId}\u0000${name}\u0000${k}`).digest('hex').slice(0, 16)
}

async function rejectsWith(name: string, bytes: Uint8Array, message: RegExp): Promise<void> {
  await assert.rejects(convertModel({ name, bytes }), (error: unknown) => {
    assert.ok(error instanceof ConversionError, `${name}: expected ConversionError, got ${String(error)}`)
    assert.match(error.message, message)
    return true
  })
}

describe('GLB and glTF', () => {
  for (const model of ['suzi', 'bunny', 'pmndrs'] as const) {
    test(`@pmndrs/assets ${model}.glb (Draco in, never bigger out)`, async () => {
      const input = await pmndrsGlb(model)
      assert.ok(glbJson(input).extensionsUsed?.includes('KHR_draco_mesh_compression'))
      const result = await convertValid(`${model}.GLB`, input)
      assert.ok(result.glb.byteLength <= input.byteLength, `${model}: ${result.glb.byteLength} bytes`)
      assert.equal(result.tree.length, 1)
      assert.ok(result.stats.triangles > 1000, `${model}: ${result.stats.triangles} triangles`)
      const rootName = model === 'pmndrs' ? 'cube' : 'mesh'
      assert.deepEqual(result.tree, [{ id: expectedId('', rootName, 0), name: rootName, children: [] }])
    })
  }

  test('embedded glTF: named nodes survive dedup and instancing, IDs follow the scheme', async () => {
    const gltf = await generated.embeddedGltf()
    const first = await convertValid('car.gltf', gltf)
    assert.deepEqual(treeNames(first.tree), [
      ['Car', ['Body', 'Wheel', 'Wheel', 'Wheel', 'Wheel', 'Marker']],
      '', // the batch node holding the six anonymous bolts, instanced
    ])
    const car = expectedId('', 'Car', 0)
    const [carNode] = first.tree
    assert.equal(carNode?.id, car)
    assert.deepEqual(
      carNode?.children.map((child) => child.id),
      [
        expectedId(car, 'Body', 0),
        expectedId(car, 'Wheel', 0),
        expectedId(car, 'Wheel', 1),
        expectedId(car, 'Wheel', 2),
        expectedId(car, 'Wheel', 3),
        expectedId(car, 'Marker', 0),
      ],
    )
    const json = glbJson(first.glb)
    assert.ok(json.extensionsUsed?.includes('EXT_mesh_gpu_instancing'))
    // Each named wheel still draws the (shared) wheel mesh.
    const wheels = (json.nodes ?? []).filter((node) => node.name === 'Wheel')
    assert.equal(wheels.length, 4)
    assert.ok(wheels.every((wheel) => wheel.mesh !== undefined && wheel.mesh === wheels[0]?.mesh))
    assert.equal(first.stats.triangles, 12 + 4 * 12 + 6 * 12)

    const second = await convertModel({ name: 'car.gltf', bytes: gltf })
    assert.deepEqual(second.tree, first.tree, 'same input, same IDs')
    assert.deepEqual(second.glb, first.glb, 'deterministic output')
  })

  test('zip of glTF + .bin + PNG in a folder', async () => {
    const { gltf, bin, png } = await generated.separateGltf()
    const zip = zipSync({
      'export/': new Uint8Array(),
      'export/scene.gltf': gltf,
      'export/scene.bin': bin,
      'export/textures/checker.png': png,
      'README.txt': strToU8('not a model'),
    })
    const result = await convertValid('bundle.ZIP', zip)
    assert.deepEqual(treeNames(result.tree), ['Panel'])
    assert.equal(glbJson(result.glb).images?.length, 1, 'the texture is carried over')
  })

  test('a glTF whose .bin is missing', async () => {
    const { gltf } = await generated.separateGltf()
    await rejectsWith('scene.gltf', gltf, /missing file: scene\.bin/)
  })
})

describe('mesh formats (three.js loaders)', () => {
  test('STL binary (stl: ship.stl) and ASCII (stl: teapot.stl)', async () => {
    const ship = await convertValid('ship.stl', readPackageFile('stl', 'test/binary/ship.stl'))
    assert.deepEqual(treeNames(ship.tree), ['ship'])
    assert.ok(ship.stats.triangles > 500)
    const teapot = await convertValid('teapot.STL', readPackageFile('stl', 'test/ascii/teapot.stl'))
    assert.deepEqual(treeNames(teapot.tree), ['teapot'])
    assert.ok(teapot.stats.triangles > 1000)
    assert.ok(teapot.stats.outputBytes < teapot.stats.inputBytes / 10)
  })

  test('STL of 10 MB (node-stl: Pterosaur_FDM.stl)', async () => {
    const bytes = readPackageFile('node-stl', 'test/test_data/Pterosaur_FDM.stl')
    assert.ok(bytes.byteLength > 9_000_000)
    const result = await convertValid('Pterosaur_FDM.stl', bytes)
    assert.ok(result.stats.triangles > 50_000)
    assert.ok(result.stats.outputBytes < 1_000_000, `${result.stats.outputBytes} bytes`)
  })

  test('PLY with faces and vertex colours, and a PLY point cloud', async () => {
    const mesh = await convertValid('cube.ply', strToU8(generated.plyCube()))
    assert.deepEqual(treeNames(mesh.tree), ['cube'])
    assert.equal(mesh.stats.triangles, 12)
    const points = await convertValid('cloud.ply', strToU8(generated.plyPoints()))
    assert.equal(points.stats.triangles, 0)
  })

  test('OBJ without materials: objects become named children', async () => {
    const result = await convertValid('parts.obj', strToU8(generated.objTwoParts()))
    assert.deepEqual(treeNames(result.tree), [['parts', ['Left', 'Right']]])
    assert.equal(result.stats.triangles, 4)
    // One primitive per `usemtl` group (the two materials differ only by name, so dedup shares one).
    const json = glbJson(result.glb)
    const right = json.nodes?.find((node) => node.name === 'Right')
    assert.equal(json.meshes?.[right?.mesh ?? -1]?.primitives.length, 2)
  })
})

describe('assimp formats', () => {
  test('zip of OBJ + MTL + PNG (assimpjs examples)', async () => {
    const files = 'examples/testfiles/cube_with_materials'
    const zip = zipSync({
      'cube/cube_with_materials.obj': readPackageFile('assimpjs', `${files}.obj`),
      'cube/cube_with_materials.mtl': readPackageFile('assimpjs', `${files}.mtl`),
      'cube/textures/cube_texture.png': readPackageFile('assimpjs', 'examples/testfiles/cube_texture.png'),
    })
    const result = await convertValid('cube.zip', zip)
    assert.equal(result.stats.triangles, 12)
    const json = glbJson(result.glb)
    assert.equal(json.images?.length, 1, 'the MTL texture is embedded')
  })

  test('3DS (assimpjs examples), its texture not uploaded', async () => {
    const bytes = readPackageFile('assimpjs', 'examples/testfiles/cube_with_materials.3ds')
    const result = await convertValid('cube_with_materials.3ds', bytes)
    assert.deepEqual(treeNames(result.tree), [['<3DSRoot>', ['cube']]])
    assert.equal(result.stats.triangles, 12)
  })

  test('FBX (ASCII, generated)', async () => {
    const result = await convertValid('pyramid.fbx', strToU8(generated.fbxPyramid()))
    assert.deepEqual(treeNames(result.tree), [['RootNode', [['Group', ['Pyramid']]]]])
    assert.equal(result.stats.triangles, 6)
  })

  test('3MF (generated)', async () => {
    const result = await convertValid('bracket.3mf', generated.threeMfTetrahedron())
    assert.equal(result.stats.triangles, 4)
    // assimp names 3MF objects by their id, not their name attribute.
    assert.deepEqual(treeNames(result.tree), [['3MF', ['Object_1']]])
  })

  test('COLLADA (generated)', async () => {
    const result = await convertValid('scene.dae', strToU8(generated.daeTwoTriangles()))
    assert.equal(result.stats.triangles, 2)
    const names = JSON.stringify(treeNames(result.tree))
    assert.ok(names.includes('Plate') && names.includes('Holder'), names)
  })
})

describe('bad input', () => {
  test('unsupported formats', async () => {
    await rejectsWith('model.xyz', randomBytes(100), /^unsupported format: \.xyz$/)
    await rejectsWith('README', randomBytes(100), /^unsupported format: \(no file extension\)$/)
  })

  test('truncated GLB', async () => {
    const suzi = await pmndrsGlb('suzi')
    await rejectsWith('suzi.glb', suzi.subarray(0, suzi.byteLength >> 1), /^truncated GLB/)
  })

  test('empty and triangle-free STL', async () => {
    await rejectsWith('empty.stl', new Uint8Array(), /empty/)
    await rejectsWith(
      'nothing.stl',
      strToU8('solid nothing\nendsolid nothing\n'),
      /STL file holds no triangles/,
    )
  })

  test('random bytes with a model extension', async () => {
    const noise = new Uint8Array(randomBytes(4096))
    for (const extension of ['glb', 'gltf', 'stl', 'ply', 'obj', 'fbx', '3mf', '3ds', 'dae']) {
      await assert.rejects(
        convertModel({ name: `noise.${extension}`, bytes: noise }),
        ConversionError,
        extension,
      )
    }
  })

  test('textures: capped at 4096 px, re-encoded only when that makes them smaller', async () => {
    // A 5000 × 40 gradient stored without compression: both rules apply.
    const [width, height] = [5000, 40]
    const raw = Buffer.alloc(width * height * 3)
    for (let i = 0; i < width * height; i++) raw.fill((i % width) % 256, i * 3, i * 3 + 3)
    const wide = await sharp(raw, { raw: { width, height, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer()
    const wideGlb = await new NodeIO().writeBinary(generated.texturedPanelDocument(new Uint8Array(wide)))
    // `keep`: the format stays (WebP, the default, is tested in conversion-size.test.ts).
    const capped = glbImage((await convertValid('wide.glb', wideGlb, { textures: 'keep' })).glb, 0)
    const meta = await sharp(capped).metadata()
    assert.equal(meta.format, 'png')
    assert.deepEqual([meta.width, meta.height], [4096, Math.round((height * 4096) / width)])
    assert.ok(capped.byteLength < wide.byteLength / 10, `${capped.byteLength} bytes`)

    // An already tight PNG is kept as it came, byte for byte.
    const tight = await sharp(raw.subarray(0, 64 * 64 * 3), { raw: { width: 64, height: 64, channels: 3 } })
      .png({ compressionLevel: 9, palette: true })
      .toBuffer()
    const tightGlb = await new NodeIO().writeBinary(generated.texturedPanelDocument(new Uint8Array(tight)))
    const kept = glbImage((await convertValid('tight.glb', tightGlb, { textures: 'keep' })).glb, 0)
    assert.ok(kept.byteLength <= tight.byteLength, `${kept.byteLength} > ${tight.byteLength}`)
  })

  test('zip bomb stops early', async () => {
    const zeros = new Uint8Array(96 * 1024 * 1024)
    const bomb = zipSync({ 'big.bin': zeros, 'model.obj': strToU8(generated.objTwoParts()) }, { level: 9 })
    assert.ok(bomb.byteLength < 200_000)
    const started = performance.now()
    await rejectsWith('bomb.zip', bomb, /too much data/)
    assert.ok(performance.now() - started < 5000)
  })

  test('zips without one clear model', async () => {
    await rejectsWith('notes.zip', zipSync({ 'a.txt': strToU8('hello') }), /no supported model/)
    const suzi = await pmndrsGlb('suzi')
    await rejectsWith(
      'two.zip',
      zipSync({ 'a.glb': suzi, 'b/b.glb': suzi }),
      /2 model files \(a\.glb, b\.glb\)/,
    )
    const entries: Record<string, Uint8Array> = {}
    for (let i = 0; i <= 10_000; i++) entries[`f${i}.txt`] = new Uint8Array()
    await rejectsWith('many.zip', zipSync(entries, { level: 0 }), /more than 10000 entries/)
    await rejectsWith('junk.zip', new Uint8Array(randomBytes(2048)), /zip/)
  })

  test('a glTF file with nothing to show', async () => {
    const document = new Document()
    document.createScene().addChild(document.createNode('Empty'))
    const { json } = await new NodeIO().writeJSON(document)
    await rejectsWith('empty.gltf', strToU8(JSON.stringify(json)), /no geometry/)
  })
})

// Conversion never makes a file bigger, stores repeated geometry once, and compresses textures
// (docs/conversion.md, "Final encoding", "Repeated geometry", "Textures"). Real models: the Draco
// GLBs of @pmndrs/assets, a CAX-IF STEP assembly, and glTF/IFC models generated here; every GLB is
// checked by the Khronos glTF-Validator and read back (decoded) with glTF-Transform.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { type Document, getBounds, type Node, NodeIO } from '@gltf-transform/core'
import sharp from 'sharp'
import { type ConvertOptions, convertModel } from '../../src/modules/conversion/pipeline/convert.ts'
import { enableDracoDecoding, pipelineIO } from '../../src/modules/conversion/pipeline/io.ts'
import type { ConversionResult, TreeNode } from '../../src/modules/conversion/pipeline/types.ts'
import { texturedPanelDocument } from '../support/conversion-models.ts'
import { ifcRepeatedWindows, repeatedPartsGlb } from '../support/conversion-repeats.ts'
import { assertValidGlb, glbImage, glbJson, pmndrsGlb, readPackageFile } from '../support/gltf.ts'

async function convert(name: string, bytes: Uint8Array, options?: ConvertOptions): Promise<ConversionResult> {
  const result = await convertModel({ name, bytes }, undefined, options)
  await assertValidGlb(result.glb, name)
  return result
}

/** Reads a GLB back the way a viewer must: meshopt and Draco decoded. */
async function decode(glb: Uint8Array): Promise<Document> {
  const io = await pipelineIO()
  await enableDracoDecoding(io)
  return io.readBinary(glb)
}

function allTreeNodes(tree: readonly TreeNode[]): TreeNode[] {
  return tree.flatMap((node) => [node, ...allTreeNodes(node.children)])
}

function outline(tree: readonly TreeNode[], depth = 0): string[] {
  return tree.flatMap((node) => [`${'  '.repeat(depth)}${node.name}`, ...outline(node.children, depth + 1)])
}

function meshNodes(document: Document, name: string): Node[] {
  return document
    .getRoot()
    .listNodes()
    .filter((node) => node.getName() === name && node.getMesh())
}

function close(actual: readonly number[], expected: readonly number[], tolerance: number): boolean {
  return actual.every((value, axis) => Math.abs(value - (expected[axis] ?? Number.NaN)) <= tolerance)
}

describe('geometry stored once', () => {
  test('20 identical parts (each with its own mesh copy) become ONE mesh and 20 nodes', async () => {
    const input = await repeatedPartsGlb(20)
    assert.equal(glbJson(input).meshes?.length, 21)
    const result = await convert('screws.glb', input)
    const json = glbJson(result.glb)
    assert.equal(json.meshes?.length, 2, 'the screws’ mesh and the plate’s')
    const screws = (json.nodes ?? []).filter((node) => node.name === 'Screw')
    assert.equal(screws.length, 20)
    assert.equal(new Set(screws.map((node) => node.mesh)).size, 1, 'every screw draws the same mesh')
    assert.ok(!json.extensionsUsed?.includes('EXT_mesh_gpu_instancing'), 'named parts are not instanced')
    const ids = screws.map((node) => node.extras?.tesseraId)
    assert.equal(new Set(ids).size, 20, 'each screw keeps its own ID')
    const [assembly] = result.tree
    assert.equal(assembly?.name, 'Assembly')
    assert.equal(assembly?.children.filter((child) => child.name === 'Screw').length, 20)
    assert.deepEqual(
      new Set(assembly?.children.map((child) => child.id)),
      new Set([...ids, assembly?.children[0]?.id]),
    )
    // Each screw is still where it was: 20 distinct places.
    const placed = meshNodes(await decode(result.glb), 'Screw').map((node) => getBounds(node).min.join(','))
    assert.equal(new Set(placed).size, 20)
  })

  test('IFC: 20 windows mapping one representation are one mesh, each window at its own place', async () => {
    const result = await convert('windows.ifc', ifcRepeatedWindows(20))
    const json = glbJson(result.glb)
    assert.equal(json.meshes?.length, 1)
    const windows = allTreeNodes(result.tree).filter((node) => node.name.startsWith('Window '))
    assert.equal(windows.length, 20)
    assert.equal(new Set(windows.map((node) => node.id)).size, 20)
    const document = await decode(result.glb)
    const bounds = Array.from({ length: 20 }, (_, i) => {
      const [node] = meshNodes(document, `Window ${i + 1}`)
      assert.ok(node, `Window ${i + 1}`)
      return getBounds(node)
    })
    // web-ifc moves the model to the origin (COORDINATE_TO_ORIGIN): places are checked relative
    // to Window 1, which is not turned.
    const origin = bounds[0]?.min ?? [0, 0, 0]
    bounds.forEach(({ min, max }, i) => {
      const size = max.map((value, axis) => value - (min[axis] ?? 0))
      // 1.2 wide, 1.5 high (IFC Z → glTF Y), 0.1 deep; every third turned 90° about the vertical.
      const turned = i % 3 === 2
      assert.ok(close(size, turned ? [0.1, 1.5, 1.2] : [1.2, 1.5, 0.1], 1e-3), `Window ${i + 1}: ${size}`)
      const x = (min[0] ?? 0) - (origin[0] ?? 0)
      assert.ok(Math.abs(x - (turned ? i * 1.5 - 0.1 : i * 1.5)) < 1e-3, `Window ${i + 1}: x ${x}`)
      assert.ok(Math.abs((min[1] ?? 0) - (origin[1] ?? 0)) < 1e-3, `Window ${i + 1}: sill height`)
    })
  })

  test('STEP: the whole product structure, repeated shapes stored once, parts where they were', async () => {
    const bytes = readPackageFile('occt-import-js', 'test/testfiles/cax-if/as1-oc-214.stp')
    const result = await convert('as1-oc-214.stp', bytes)
    const lines = outline(result.tree)
    // nut-bolt-assembly (level 3) is back where the file puts it: 3 per l-bracket-assembly.
    assert.deepEqual(lines.slice(0, 12), [
      'as1',
      '  rod-assembly',
      '    nut',
      '    nut',
      '    rod',
      '  l-bracket-assembly',
      '    nut-bolt-assembly',
      '      bolt',
      '      nut',
      '    nut-bolt-assembly',
      '      bolt',
      '      nut',
    ])
    assert.equal(lines.filter((line) => line.trim() === 'nut-bolt-assembly').length, 6)
    assert.equal(new Set(allTreeNodes(result.tree).map((node) => node.id)).size, lines.length)
    // 5 distinct shapes (nut, bolt, rod, l-bracket, plate) for 18 parts.
    assert.equal(glbJson(result.glb).meshes?.length, 5)
    const document = await decode(result.glb)
    assert.equal(meshNodes(document, 'nut').length, 8)
    const bolts = meshNodes(document, 'bolt').map((node) => getBounds(node).min.join(','))
    assert.equal(new Set(bolts).size, 6, 'six bolts in six places')
    // The assembly's extent is unchanged (measured before sharing: 0.2 × 0.084 × 0.15 m).
    const { min, max } = getBounds(document.getRoot().listScenes()[0] as never)
    assert.ok(close(min, [-0.01, -0.004, -0.15], 1e-4), `min ${min.join(' ')}`)
    assert.ok(close(max, [0.19, 0.08, 0], 1e-4), `max ${max.join(' ')}`)
  })
})

describe('never bigger', () => {
  for (const model of ['suzi', 'bunny', 'pmndrs'] as const) {
    test(`Draco ${model}.glb: output ≤ input, still Draco, decodes to the same shape`, async () => {
      const input = await pmndrsGlb(model)
      const result = await convert(`${model}.glb`, input)
      assert.ok(result.glb.byteLength <= input.byteLength, `${result.glb.byteLength} > ${input.byteLength}`)
      assert.equal(result.stats.encoding.chosen, 'draco')
      assert.ok((result.stats.encoding.sizes.meshopt ?? 0) > result.glb.byteLength)
      const json = glbJson(result.glb)
      assert.ok(json.extensionsRequired?.includes('KHR_draco_mesh_compression'))
      const before = getBounds((await decode(input)).getRoot().listScenes()[0] as never)
      const after = await decode(result.glb)
      const bounds = getBounds(after.getRoot().listScenes()[0] as never)
      assert.ok(close(bounds.min, before.min, 1e-6) && close(bounds.max, before.max, 1e-6), 'same extent')
      const positions = after.getRoot().listMeshes()[0]?.listPrimitives()[0]?.getAttribute('POSITION')
      assert.ok((positions?.getCount() ?? 0) > 500, 'vertices decoded')
      assert.equal(result.tree[0]?.name, model === 'pmndrs' ? 'cube' : 'mesh')
    })
  }

  test('a meshopt input (our own output) does not grow when converted again', async () => {
    const first = await convert('screws.glb', await repeatedPartsGlb(20))
    const again = await convert('again.glb', first.glb)
    assert.ok(
      again.glb.byteLength <= first.glb.byteLength,
      `${again.glb.byteLength} > ${first.glb.byteLength}`,
    )
    assert.deepEqual(again.tree, first.tree)
  })
})

describe('textures', () => {
  /** A smooth RGB gradient with some noise: photo-like, so WebP beats PNG and JPEG. */
  async function photo(width: number, height: number, format: 'png' | 'jpeg'): Promise<Uint8Array> {
    const raw = Buffer.alloc(width * height * 3)
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 3
        raw[i] = (x * 255) / width
        raw[i + 1] = (y * 255) / height
        raw[i + 2] = ((x ^ y) & 15) * 4
      }
    }
    const image = sharp(raw, { raw: { width, height, channels: 3 } })
    return new Uint8Array(await (format === 'png' ? image.png() : image.jpeg({ quality: 90 })).toBuffer())
  }

  async function texturedGlb(image: Uint8Array, mimeType: string): Promise<Uint8Array> {
    const document = texturedPanelDocument(image)
    document.getRoot().listTextures()[0]?.setMimeType(mimeType)
    return new NodeIO().writeBinary(document)
  }

  test('PNG → lossless WebP (EXT_texture_webp) by default, PNG with `keep`', async () => {
    const png = await photo(256, 256, 'png')
    const result = await convert('photo.glb', await texturedGlb(png, 'image/png'))
    const json = glbJson(result.glb)
    assert.ok(json.extensionsRequired?.includes('EXT_texture_webp'))
    assert.equal(json.images?.[0]?.mimeType, 'image/webp')
    const webp = glbImage(result.glb, 0)
    assert.ok(webp.byteLength < png.byteLength, `${webp.byteLength} ≥ ${png.byteLength}`)
    assert.equal((await sharp(webp).metadata()).format, 'webp')
    // Lossless: the pixels are the PNG's.
    const [decoded, original] = await Promise.all([sharp(webp).raw().toBuffer(), sharp(png).raw().toBuffer()])
    assert.ok(decoded.equals(original), 'same pixels')

    const kept = await convert('photo.glb', await texturedGlb(png, 'image/png'), { textures: 'keep' })
    assert.equal(glbJson(kept.glb).images?.[0]?.mimeType, 'image/png')
    assert.ok(!glbJson(kept.glb).extensionsUsed?.includes('EXT_texture_webp'))
    assert.equal((await sharp(glbImage(kept.glb, 0)).metadata()).format, 'png')
  })

  test('JPEG → WebP when smaller, JPEG with `keep`', async () => {
    const jpeg = await photo(512, 256, 'jpeg')
    const result = await convert('photo.glb', await texturedGlb(jpeg, 'image/jpeg'))
    assert.equal(glbJson(result.glb).images?.[0]?.mimeType, 'image/webp')
    const meta = await sharp(glbImage(result.glb, 0)).metadata()
    assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 512, 256])
    const kept = await convert('photo.glb', await texturedGlb(jpeg, 'image/jpeg'), { textures: 'keep' })
    assert.equal(glbJson(kept.glb).images?.[0]?.mimeType, 'image/jpeg')
    assert.equal((await sharp(glbImage(kept.glb, 0)).metadata()).format, 'jpeg')
  })

  test('a texture above 4096 px is resized to 4096 (aspect kept)', async () => {
    const wide = await photo(5000, 64, 'png')
    const result = await convert('wide.glb', await texturedGlb(wide, 'image/png'))
    const meta = await sharp(glbImage(result.glb, 0)).metadata()
    assert.deepEqual([meta.width, meta.height], [4096, Math.round((64 * 4096) / 5000)])
  })
})

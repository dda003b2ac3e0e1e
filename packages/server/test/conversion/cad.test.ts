// The CAD (STEP/IGES/BREP through OpenCascade) and BIM (IFC through web-ifc) importers, on the
// real files occt-import-js ships (CAX-IF test models and others) and on a hand-written IFC4 house:
// each imports into a valid glTF with the file's hierarchy and names, in meters and Y-up; damaged
// or empty inputs are rejected with a ConversionError.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'
import { type Document, type Node, NodeIO } from '@gltf-transform/core'
import { getBounds } from '@gltf-transform/functions'
import { importIfc } from '../../src/modules/conversion/pipeline/importers/ifc.ts'
import { createOcctImporter, importOcct } from '../../src/modules/conversion/pipeline/importers/occt.ts'
import { ConversionError, type Importer } from '../../src/modules/conversion/pipeline/types.ts'
import { assertValidGlb, packageFile, readPackageFile } from '../support/gltf.ts'

const occtFile = (relativePath: string): Uint8Array =>
  readPackageFile('occt-import-js', `test/testfiles/${relativePath}`)
const HOUSE_IFC = new Uint8Array(
  readFileSync(path.join(import.meta.dirname, '../fixtures/conversion/small-house.ifc')),
)

interface Imported {
  document: Document
  ms: number
  /** The default scene as indented `name [primitives]` lines. */
  outline: string[]
  triangles: number
}

async function importAndValidate(importer: Importer, name: string, bytes: Uint8Array): Promise<Imported> {
  const started = performance.now()
  const document = await importer({ name, bytes, files: new Map() })
  const ms = Math.round(performance.now() - started)
  await assertValidGlb(await new NodeIO().writeBinary(document), name)
  const roots = document.getRoot().getDefaultScene()?.listChildren() ?? []
  const triangles = document
    .getRoot()
    .listMeshes()
    .flatMap((mesh) => mesh.listPrimitives())
    .reduce((sum, primitive) => sum + (primitive.getIndices()?.getCount() ?? 0) / 3, 0)
  assert.ok(triangles > 0, `${name}: no triangles`)
  return { document, ms, outline: roots.flatMap((root) => outline(root, 0)), triangles }
}

function outline(node: Node, depth: number): string[] {
  const mesh = node.getMesh()
  const line = `${'  '.repeat(depth)}${node.getName()}${mesh ? ` [${mesh.listPrimitives().length}]` : ''}`
  return [line, ...node.listChildren().flatMap((child) => outline(child, depth + 1))]
}

function findNode(document: Document, name: string): Node {
  const node = document
    .getRoot()
    .listNodes()
    .find((candidate) => candidate.getName() === name)
  assert.ok(node, `no node named ${name}`)
  return node
}

/** World-space size along x, y, z. */
function size(document: Document, node?: Node): number[] {
  const scene = document.getRoot().getDefaultScene()
  assert.ok(scene)
  const { min, max } = getBounds(node ?? scene)
  return max.map((value, axis) => value - (min[axis] ?? 0))
}

function assertClose(actual: number[], expected: number[], tolerance: number, label: string): void {
  assert.ok(
    actual.every((value, axis) => Math.abs(value - (expected[axis] ?? Number.NaN)) <= tolerance),
    `${label}: ${actual.map((value) => value.toFixed(4)).join(' ')} ≠ ${expected.join(' ')}`,
  )
}

/** Names the STEP file declares for its products: PRODUCT('id','name',…). */
function stepProductNames(bytes: Uint8Array): Set<string> {
  const text = new TextDecoder().decode(bytes)
  return new Set([...text.matchAll(/PRODUCT\s*\(\s*'[^']*'\s*,\s*'([^']*)'/g)].map((match) => match[1] ?? ''))
}

/** Deterministic noise, so a failure reproduces. */
function noise(length: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(length)
  let state = seed
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) >>> 0
    bytes[i] = state >>> 24
  }
  return bytes
}

async function assertRejects(
  importer: Importer,
  name: string,
  bytes: Uint8Array,
  message: RegExp,
): Promise<void> {
  await assert.rejects(importer({ name, bytes, files: new Map() }), (error: unknown) => {
    assert.ok(error instanceof ConversionError, `${name}: ${String(error)} is not a ConversionError`)
    assert.match(error.message, message)
    return true
  })
}

function log(label: string, imported: Imported): void {
  const nodes = imported.document.getRoot().listNodes().length
  console.log(`# ${label}: ${nodes} nodes, ${imported.triangles} triangles, ${imported.ms} ms`)
}

describe('STEP, IGES and BREP (occt-import-js)', () => {
  test('an AP214 assembly keeps its assemblies and part names, in meters, Y-up', async () => {
    const bytes = occtFile('cax-if/as1-oc-214.stp')
    const imported = await importAndValidate(importOcct, 'as1-oc-214.stp', bytes)
    log('as1-oc-214.stp', imported)
    // occt-import-js flattens below the second level: nut-bolt-assembly's nuts and bolts are listed
    // in l-bracket-assembly. Every name is one the file declares.
    assert.deepEqual(imported.outline.slice(0, 5), [
      'as1',
      '  rod-assembly',
      '    nut [1]',
      '    nut [1]',
      '    rod [1]',
    ])
    assert.deepEqual(
      imported.outline.filter((line) => /^ {2}\S/.test(line)),
      ['  rod-assembly', '  l-bracket-assembly', '  plate [1]', '  l-bracket-assembly'],
    )
    const declared = stepProductNames(bytes)
    for (const node of imported.document.getRoot().listNodes()) {
      assert.ok(declared.has(node.getName()), `${node.getName()} is not a product of the file`)
    }
    // The plate lies on the file's XY plane (180 × 150 × 20 mm): after the turn it lies on XZ.
    assertClose(
      size(imported.document, findNode(imported.document, 'plate')),
      [0.18, 0.02, 0.15],
      1e-4,
      'plate',
    )
  })

  test('an AP203 assembly: sub-assemblies hold their solids', async () => {
    const imported = await importAndValidate(importOcct, 'as1_pe_203.stp', occtFile('cax-if/as1_pe_203.stp'))
    log('as1_pe_203.stp', imported)
    assert.deepEqual(
      imported.outline.filter((line) => !line.includes('SOLID')),
      ['AS1_PE_ASM', '  PLATE', '  L_BRACKET_ASSEMBLY_ASM', '  L_BRACKET_ASSEMBLY_ASM', '  ROD_ASM'],
    )
    assert.equal(imported.outline.filter((line) => line.trim() === 'SOLID [1]').length, 18)
    assert.equal(imported.document.getRoot().listMaterials().length, 4)
  })

  test('face colors become primitives with their own materials', async () => {
    const imported = await importAndValidate(importOcct, 'cube.step', occtFile('cube-fcstd/cube.step'))
    log('cube.step', imported)
    assert.deepEqual(imported.outline, ['Cube [4]'])
    assert.equal(imported.triangles, 12)
    const colors = imported.document
      .getRoot()
      .listMaterials()
      .map((material) => material.getBaseColorFactor().map((channel) => Math.round(channel * 100) / 100))
    assert.deepEqual(colors.slice(0, 4).length, 4)
    assert.ok(
      colors.some(([r, g, b]) => r === 1 && g === 0 && b === 0),
      'the red face',
    )
    assert.ok(
      colors.some(([r, g, b]) => r === 0 && g === 0 && b === 1),
      'the blue face',
    )
  })

  test('the declared unit is converted: a 1-inch-declared cube of 1 m edge is 1 m', async () => {
    const imported = await importAndValidate(importOcct, 'cube-in.step', occtFile('cube-units/cube-in.step'))
    log('cube-in.step', imported)
    assertClose(size(imported.document), [1, 1, 1], 1e-5, 'cube-in')
  })

  test('a cone (tessellation with a singular tip) and a surface model', async () => {
    const cone = await importAndValidate(
      importOcct,
      'conical-surface.step',
      occtFile('conical-surface/conical-surface.step'),
    )
    log('conical-surface.step', cone)
    assert.deepEqual(cone.outline, ['(Unsaved) [1]'])
    const surfaces = await importAndValidate(importOcct, 'sg1-c5-214.stp', occtFile('cax-if/sg1-c5-214.stp'))
    log('sg1-c5-214.stp', surfaces)
    assert.deepEqual(surfaces.outline, ['SG1 [1]'])
  })

  test('IGES: a 10 mm cube', async () => {
    const imported = await importAndValidate(
      importOcct,
      'Cube 10x10.igs',
      occtFile('cube-10x10mm/Cube 10x10.igs'),
    )
    log('Cube 10x10.igs', imported)
    assert.deepEqual(imported.outline, ['Solid1 [1]'])
    assert.equal(imported.triangles, 12)
    assertClose(size(imported.document), [0.01, 0.01, 0.01], 1e-6, 'cube')
  })

  test("the caller's bytes stay intact, even a Node Buffer (bytes go to the worker as a copy)", async () => {
    const bytes = readFileSync(packageFile('occt-import-js', 'test/testfiles/cube-10x10mm/Cube 10x10.stp'))
    const length = bytes.byteLength
    await importAndValidate(importOcct, 'Cube 10x10.stp', bytes.subarray(0, length))
    assert.equal(bytes.byteLength, length)
  })

  test('BREP: unnamed solids under a node named after the file, millimeters scaled to meters', async () => {
    const imported = await importAndValidate(
      importOcct,
      'as1_pe_203.brep',
      occtFile('cax-if-brep/as1_pe_203.brep'),
    )
    log('as1_pe_203.brep', imported)
    assert.equal(imported.outline[0], 'as1_pe_203')
    assert.deepEqual(imported.outline.slice(1, 3), ['  Shape 1 [1]', '  Shape 2 [1]'])
    assert.equal(imported.outline.length, 19)
    const step = await importOcct({
      name: 'as1_pe_203.stp',
      bytes: occtFile('cax-if/as1_pe_203.stp'),
      files: new Map(),
    })
    assertClose(size(imported.document), size(step), 1e-4, 'BREP vs STEP of the same assembly')
  })

  test('broken inputs are ConversionErrors', async () => {
    for (const name of ['noise.stp', 'noise.igs', 'noise.brep']) {
      await assertRejects(importOcct, name, noise(4096, 7), /cannot be read/)
      await assertRejects(importOcct, name, new Uint8Array(0), /is empty/)
    }
    const step = occtFile('cax-if/as1-oc-214.stp')
    await assertRejects(
      importOcct,
      'truncated.stp',
      step.subarray(0, step.length / 2),
      /the STEP file cannot be read/,
    )
    // OpenCascade throws a C++ exception out of the wasm on this one; the worker is replaced.
    const brep = occtFile('cax-if-brep/as1_pe_203.brep')
    await assertRejects(importOcct, 'cut.brep', brep.subarray(0, 421), /^the BREP file cannot be read$/)
    // An assembly whose parts live in other files (external references): nothing to show.
    await assertRejects(
      importOcct,
      's1-c5-214.stp',
      occtFile('cax-if/s1-c5-214/s1-c5-214.stp'),
      /holds no geometry/,
    )
    await assertRejects(importOcct, 'model.xyz', step, /unsupported format/)
  })

  test('a reader that never returns is cut off, and the next file still imports', async () => {
    // OpenCascade's BREP reader loops forever on this truncation.
    const brep = occtFile('cax-if-brep/as1_pe_203.brep')
    const impatient = createOcctImporter({ timeoutMs: () => 1500 })
    await assertRejects(
      impatient,
      'truncated.brep',
      brep.subarray(0, brep.length / 2),
      /did not finish in time/,
    )
    const imported = await importAndValidate(
      impatient,
      'Cube 10x10.igs',
      occtFile('cube-10x10mm/Cube 10x10.igs'),
    )
    assert.equal(imported.triangles, 12)
  })
})

describe('IFC (web-ifc)', () => {
  test('a small house: the spatial structure, element names, colors and transparency', async () => {
    const imported = await importAndValidate(importIfc, 'small-house.ifc', HOUSE_IFC)
    log('small-house.ifc', imported)
    assert.deepEqual(imported.outline, [
      'Small House',
      '  Site',
      '    House',
      '      Ground Floor',
      '        Wand Süd [1]',
      '        East Wall [1]',
      '        Floor Slab [1]',
      '        IfcBuildingElementProxy 2wOHd8Ns14tRoNPsJ9ZQjT [1]',
    ])
    assert.equal(imported.triangles, 48)
    const wall = findNode(imported.document, 'Wand Süd')
    // Beside the class and GlobalId, its properties ride in the extras until the tree is built
    // (node-properties.ts; ifc-properties.test.ts checks them).
    const { tesseraProperties, ...identity } = wall.getExtras() as Record<string, unknown>
    assert.deepEqual(identity, { ifcType: 'IfcWall', ifcGlobalId: '3vB2YO$MX4xv5uCqZZG05x' })
    assert.ok(tesseraProperties, 'the wall carries its properties')
    // 6 m along X, 2.8 m high (IFC's Z is glTF's Y), 0.2 m thick.
    assertClose(size(imported.document, wall), [6, 2.8, 0.2], 1e-4, 'south wall')
    assertClose(
      size(imported.document, findNode(imported.document, 'East Wall')),
      [0.2, 2.8, 4],
      1e-4,
      'east wall',
    )
    const materials = imported.document.getRoot().listMaterials()
    assert.equal(materials.length, 3)
    const glass = materials.filter((material) => material.getAlphaMode() === 'BLEND')
    assert.equal(glass.length, 1)
    assert.ok(
      Math.abs((glass[0]?.getBaseColorFactor()[3] ?? 0) - 0.4) < 1e-6,
      'glass alpha = 1 − transparency',
    )
  })

  test('broken or empty IFC files are ConversionErrors', async () => {
    await assertRejects(importIfc, 'noise.ifc', noise(4096, 11), /not an IFC file/)
    await assertRejects(importIfc, 'empty.ifc', new Uint8Array(0), /is empty/)
    await assertRejects(importIfc, 'truncated.ifc', HOUSE_IFC.subarray(0, HOUSE_IFC.length / 2), /incomplete/)
    await assertRejects(importIfc, 'cube.ifc', occtFile('simple-basic-cube/cube.stp'), /not an IFC file/)
    const text = new TextDecoder().decode(HOUSE_IFC)
    const withoutElements = text.replace(/^#(6\d|7\d|8\d|9\d|1\d\d)=.*\n/gm, '')
    await assertRejects(
      importIfc,
      'no-geometry.ifc',
      new TextEncoder().encode(withoutElements),
      /holds no geometry/,
    )
    // Past the envelope checks, a damaged DATA section makes web-ifc trap (memory access out of
    // bounds): still a ConversionError, and the next file gets a fresh web-ifc.
    const damaged = text.replaceAll(/IFCPRODUCTDEFINITIONSHAPE\(\$,\$,\(#\d+\)\)/g, '$')
    await assertRejects(
      importIfc,
      'damaged.ifc',
      new TextEncoder().encode(damaged),
      /the IFC file cannot be read/,
    )
    const again = await importAndValidate(importIfc, 'small-house.ifc', HOUSE_IFC)
    assert.equal(again.triangles, 48)
  })
})

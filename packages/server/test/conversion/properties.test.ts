// Model properties read at conversion (pipeline/node-properties.ts): each format's nodes come out of
// convertModel with what the file says about them, keyed by their scene tree IDs, bounded, and out
// of the GLB. IFC's own extraction is tested in ifc-properties.test.ts; here its result reaches
// the right tree nodes.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'
import { Document, NodeIO } from '@gltf-transform/core'
import { convertModel } from '../../src/modules/conversion/pipeline/convert.ts'
import type { PropertyEntry } from '../../src/modules/conversion/pipeline/node-properties.ts'
import type { TreeNode } from '../../src/modules/conversion/pipeline/types.ts'
import { objTwoParts } from '../support/conversion-models.ts'
import { glbJson, packageFile } from '../support/gltf.ts'

function byPath(tree: TreeNode[], properties: PropertyEntry[]): Map<string, PropertyEntry> {
  const paths = new Map<string, string>()
  const walk = (nodes: TreeNode[], prefix: string): void => {
    for (const node of nodes) {
      const at = prefix ? `${prefix}/${node.name}` : node.name
      if (!paths.has(node.id)) paths.set(node.id, at)
      walk(node.children, at)
    }
  }
  walk(tree, '')
  const out = new Map<string, PropertyEntry>()
  for (const entry of properties) {
    const at = paths.get(entry.nodeId)
    assert.ok(at, `property node ${entry.nodeId} is in the tree`)
    if (!out.has(at)) out.set(at, entry)
  }
  return out
}

function triangleDocument(): Document {
  const document = new Document()
  const buffer = document.createBuffer()
  const position = document
    .createAccessor()
    .setType('VEC3')
    .setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]))
    .setBuffer(buffer)
  const mesh = document
    .createMesh('plate-mesh')
    .addPrimitive(
      document
        .createPrimitive()
        .setAttribute('POSITION', position)
        .setMaterial(document.createMaterial('Zinc')),
    )
  document.createScene().addChild(document.createNode('Plate').setMesh(mesh))
  return document
}

describe('model properties at conversion', () => {
  test('glTF: extras flattened, mesh and material names, nothing left in the GLB', async () => {
    const document = triangleDocument()
    const plate = document.getRoot().listNodes()[0]
    plate?.setExtras({ code: 'P-1', size: { w: 2, h: [3, 4] }, ok: true, skip: null, __proto__x: 'kept' })
    const bytes = await new NodeIO().writeBinary(document)
    const result = await convertModel({ name: 'plate.glb', bytes })
    const found = byPath(result.tree, result.properties)
    assert.deepEqual(found.get('Plate'), {
      nodeId: result.tree[0]?.id,
      groups: {
        extras: { code: 'P-1', 'size.w': 2, 'size.h.0': 3, 'size.h.1': 4, ok: true, __proto__x: 'kept' },
        Mesh: { name: 'plate-mesh', materials: 'Zinc' },
      },
      units: {},
    })
    // The model's own extras stay in the GLB; ours do not.
    const json = JSON.stringify(glbJson(result.glb))
    assert.match(json, /"code":"P-1"/)
    assert.doesNotMatch(json, /tesseraProperties/)
    assert.deepEqual(result.propertiesTruncated, [])
  })

  test('a hostile name is a name: `__proto__` is stored as a group and as a property', async () => {
    const document = triangleDocument()
    const extras = JSON.parse('{"__proto__": {"polluted": 1}, "constructor": "c"}') as Record<string, unknown>
    document.getRoot().listNodes()[0]?.setExtras(extras)
    const result = await convertModel({ name: 'plate.glb', bytes: await new NodeIO().writeBinary(document) })
    const groups = result.properties[0]?.groups
    assert.equal(groups?.extras?.['__proto__.polluted'], 1)
    assert.equal(groups?.extras?.constructor, 'c')
    assert.equal(({} as Record<string, unknown>).polluted, undefined)
  })

  test('bounds: long values and names are cut, a node keeps at most 512 properties', async () => {
    const document = triangleDocument()
    const many: Record<string, unknown> = { long: 'x'.repeat(5000), ['n'.repeat(300)]: 1 }
    for (let i = 0; i < 600; i++) many[`p${i}`] = i
    document.getRoot().listNodes()[0]?.setExtras(many)
    const result = await convertModel({ name: 'plate.glb', bytes: await new NodeIO().writeBinary(document) })
    const extras = result.properties[0]?.groups.extras ?? {}
    assert.equal([...String(extras.long)].length, 1024)
    assert.ok(String(extras.long).endsWith('…'))
    assert.ok(Object.keys(extras).some((name) => name.length === 128 && name.endsWith('…')))
    // flattening keeps 512 of a node's extras; the Mesh group then has no room left.
    assert.equal(Object.keys(extras).length, 512)
    assert.deepEqual(result.propertiesTruncated.sort(), [
      'properties per node (1 node)',
      'property name length (1 node)',
      'value length (1 node)',
    ])
  })

  test('OBJ: object names are the nodes, their materials are listed', async () => {
    const result = await convertModel({ name: 'two.obj', bytes: new TextEncoder().encode(objTwoParts()) })
    const found = byPath(result.tree, result.properties)
    const right = [...found.entries()].find(([at]) => at.endsWith('Right'))?.[1]
    assert.deepEqual(right?.groups.Mesh?.materials, 'red, blue')
  })

  test('STEP: product id and description, assembly path', async () => {
    const bytes = new Uint8Array(
      readFileSync(packageFile('occt-import-js', 'test/testfiles/cax-if/as1-oc-214.stp')),
    )
    const result = await convertModel({ name: 'as1-oc-214.stp', bytes })
    const found = byPath(result.tree, result.properties)
    assert.deepEqual(found.get('as1/rod-assembly')?.groups.STEP, {
      name: 'rod-assembly',
      id: 'rod-assembly',
      'assembly path': 'as1',
    })
    const nut = [...found.entries()].find(([at]) => at.startsWith('as1/rod-assembly/nut'))?.[1]
    assert.deepEqual(nut?.groups.STEP, { name: 'nut', id: 'nut', 'assembly path': 'as1 / rod-assembly' })
    assert.deepEqual(found.get('as1')?.groups.STEP, { name: 'as1', id: 'as1' })
  })

  test('IFC: the products get their property sets on their own tree nodes', async () => {
    const fixture = path.join(import.meta.dirname, '../fixtures/conversion/house-properties.ifc')
    const result = await convertModel({ name: 'house.ifc', bytes: new Uint8Array(readFileSync(fixture)) })
    const walls = result.properties.filter((entry) => entry.groups.IFC?.class === 'IfcWall')
    assert.ok(walls.length >= 2, 'both walls have properties')
    const rated = walls.find((entry) => entry.groups.Pset_WallCommon?.FireRating === 'REI60')
    assert.ok(rated, 'the rated wall keeps its occurrence property set')
    assert.equal(rated.units.Qto_WallBaseQuantities?.Length, 'm')
    const ids = new Set<string>()
    const collect = (nodes: TreeNode[]): void => {
      for (const node of nodes) {
        ids.add(node.id)
        collect(node.children)
      }
    }
    collect(result.tree)
    for (const entry of result.properties) assert.ok(ids.has(entry.nodeId))
    // IFC nodes describe their materials in `Materials`, not as mesh names.
    assert.ok(result.properties.every((entry) => entry.groups.Mesh === undefined))
  })
})

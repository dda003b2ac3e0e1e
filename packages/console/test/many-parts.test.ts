// A model of many parts, loaded in two steps (viewer/many-parts.ts), without a browser: the scene
// built in slices is the scene GLTFLoader builds (names, extras, transforms, hierarchy, meshes and
// materials), the preview puts every mesh where its node does, the build gives the event loop its
// turn, and models it does not handle are left to GLTFLoader.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Document, NodeIO } from '@gltf-transform/core'
import * as THREE from 'three'
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js'
import { MANY_PARTS, ManyParts, PREVIEW_MAX_CALLS } from '../src/viewer/many-parts.ts'

const BOX = [0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1]

/** Storeys of parts: shared meshes (one of two primitives), TRS and matrix nodes, clashing names. */
async function model(
  parts: number,
  options: { skin?: boolean; unique?: boolean } = {},
): Promise<ArrayBuffer> {
  const doc = new Document()
  const buffer = doc.createBuffer()
  const material = (name: string, r: number) => doc.createMaterial(name).setBaseColorFactor([r, 0.5, 0.5, 1])
  const primitive = (size: number, m: ReturnType<typeof material>) => {
    const corners = [0, 1, 2, 3, 4, 5, 6, 7].flatMap((c) => [
      c & 4 ? size : 0,
      c & 2 ? size : 0,
      c & 1 ? size : 0,
    ])
    return doc
      .createPrimitive()
      .setAttribute('POSITION', doc.createAccessor().setType('VEC3').setArray(new Float32Array(corners)))
      .setIndices(doc.createAccessor().setType('SCALAR').setArray(new Uint16Array(BOX)))
      .setMaterial(m)
  }
  const meshes = [0, 1, 2].map((k) => {
    // A node named like its mesh ("Part"): GLTFLoader's unique names must come out the same.
    const mesh = doc
      .createMesh(k === 0 ? 'Part' : `shape-${k}`)
      .addPrimitive(primitive(0.2 + k * 0.1, material(`m${k}`, 0.3)))
    if (k === 2) mesh.addPrimitive(primitive(0.05, material('trim', 0.9)))
    return mesh.setExtras({ kind: `shape ${k}` })
  })
  const scene = doc.createScene('Site').setExtras({ site: 'test' })
  const storeys = [0, 1, 2, 3].map((s) => {
    const node = doc
      .createNode(`Storey ${s}`)
      .setTranslation([0, s * 3, 0])
      .setRotation([0, Math.sin(s / 4), 0, Math.cos(s / 4)])
    scene.addChild(node)
    return node
  })
  for (let i = 0; i < parts; i++) {
    const node = doc.createNode(i % 7 === 0 ? 'Part' : i % 11 === 0 ? '' : `Part ${i}`)
    node.setExtras({ tesseraId: `n${i}` })
    const own = () => doc.createMesh(`own-${i}`).addPrimitive(primitive(0.1, material(`own-${i}`, 0.5)))
    if (i % 13 !== 0) node.setMesh(options.unique ? own() : (meshes[i % 3] ?? null))
    if (i % 5 === 0) node.setMatrix([2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0.5, 0, i * 0.01, 1, -i * 0.02, 1])
    else node.setTranslation([(i % 50) * 0.5, 0, Math.floor(i / 50) * 0.5]).setScale([1, 1 + (i % 3), 1])
    const parent = storeys[i % 4]
    // Every tenth part sits under the part before it: depth beyond the storeys.
    const holder = i % 10 === 9 ? storeys[i % 4]?.listChildren().at(-1) : parent
    holder?.addChild(node)
  }
  if (options.skin) doc.createSkin('rig').addJoint(storeys[0] as ReturnType<typeof doc.createNode>)
  for (const accessor of doc.getRoot().listAccessors()) accessor.setBuffer(buffer)
  const bytes = await new NodeIO().writeBinary(doc)
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
}

interface Shape {
  type: string
  name: string
  userData: unknown
  matrix: number[]
  mesh?: { vertices: number; material: string }
  children: Shape[]
}

const round = (n: number) => Math.round(n * 1e6) / 1e6

function shapeOf(object: THREE.Object3D): Shape {
  object.updateMatrix()
  const shape: Shape = {
    type: object.type,
    name: object.name,
    userData: object.userData,
    matrix: object.matrix.elements.map(round),
    children: object.children.map(shapeOf),
  }
  if (object instanceof THREE.Mesh) {
    const material = object.material as THREE.Material
    shape.mesh = { vertices: object.geometry.getAttribute('position').count, material: material.name }
  }
  return shape
}

async function loadBoth(bytes: ArrayBuffer) {
  const plain = (await new GLTFLoader().parseAsync(bytes.slice(0), '')).scene
  const previews: THREE.Group[] = []
  const owned: THREE.Mesh[] = []
  const many = new ManyParts(
    async (group) => {
      previews.push(group)
    },
    (mesh) => owned.push(mesh),
  )
  let ticks = 0
  const ticker = setInterval(() => ticks++, 1)
  const loaded = await new GLTFLoader().register(many.plugin).parseAsync(bytes.slice(0), '')
  clearInterval(ticker)
  return { plain, built: many.root, leftOver: loaded.scene, previews, owned, ticks }
}

describe('a model of many parts, loaded in two steps', () => {
  it('builds the scene GLTFLoader builds, and gives the event loop its turn meanwhile', async () => {
    const { plain, built, leftOver, owned, ticks } = await loadBoth(await model(20_000))
    assert.ok(built, 'the plugin built the scene')
    assert.deepEqual(shapeOf(built), shapeOf(plain))
    assert.equal(leftOver.children.length, 0, 'GLTFLoader had nothing left to build')
    const meshes: THREE.Mesh[] = []
    built.traverse((o) => {
      if (o instanceof THREE.Mesh) meshes.push(o)
    })
    assert.equal(owned.length, meshes.length, 'each part’s materials made its own, once')
    assert.deepEqual(new Set(owned), new Set(meshes))
    assert.ok(ticks >= 5, `the event loop ran ${ticks} times during the build`)
  })

  it('previews every mesh where its node puts it, one batch per primitive', async () => {
    const { plain, previews } = await loadBoth(await model(3_000))
    assert.equal(previews.length, 1)
    const preview = previews[0] as THREE.Group
    plain.updateMatrixWorld(true)
    const expected: Place[] = []
    plain.traverse((o) => {
      if (o instanceof THREE.Mesh) expected.push(placeOf(o.matrixWorld, o.geometry))
    })
    const drawn: Place[] = []
    for (const batch of preview.children as THREE.InstancedMesh[]) {
      for (let i = 0; i < batch.count; i++)
        drawn.push(placeOf(batch.getMatrixAt(i, new THREE.Matrix4()), batch.geometry))
    }
    assert.equal(drawn.length, expected.length)
    // Instance matrices are 32-bit floats: equal to a thousandth.
    const [a, b] = [drawn.sort(byPlace), expected.sort(byPlace)]
    for (const [i, place] of a.entries()) {
      const other = b[i] as Place
      assert.equal(place.vertices, other.vertices)
      for (const [k, e] of place.elements.entries())
        assert.ok(Math.abs(e - (other.elements[k] ?? Number.NaN)) < 1e-3, `${e} ≠ ${other.elements[k]}`)
    }
    // Three meshes, one of them of two primitives.
    assert.equal(preview.children.length, 4)
  })

  it('stops building when the viewer is closed meanwhile', async () => {
    const closed = new AbortController()
    let built = 0
    const many = new ManyParts(
      async () => {
        // Closed while the parts are being built, after a few slices.
        setTimeout(() => closed.abort(new Error('closed')), 30)
      },
      () => built++,
      closed.signal,
    )
    const load = new GLTFLoader().register(many.plugin).parseAsync(await model(20_000), '')
    await assert.rejects(load, /closed/)
    assert.equal(many.root, null)
    assert.ok(built > 0 && built < 18_000, `${built} parts built before it stopped`)
  })

  it('builds a model whose parts have meshes of their own in slices too, without a preview', async () => {
    const parts = PREVIEW_MAX_CALLS + 1_500
    const { plain, built, previews } = await loadBoth(await model(parts, { unique: true }))
    assert.equal(previews.length, 0, `a preview of ${parts} draw calls would cost what the model costs`)
    assert.ok(built)
    assert.deepEqual(shapeOf(built), shapeOf(plain))
  })

  it('leaves small models, and models with skins, to GLTFLoader', async () => {
    for (const bytes of [await model(MANY_PARTS - 100), await model(3_000, { skin: true })]) {
      const { built, previews, leftOver, plain } = await loadBoth(bytes)
      assert.equal(built, null)
      assert.equal(previews.length, 0)
      assert.deepEqual(shapeOf(leftOver), shapeOf(plain))
    }
  })
})

interface Place {
  vertices: number
  elements: number[]
}

function placeOf(matrix: THREE.Matrix4, geometry: THREE.BufferGeometry): Place {
  return { vertices: geometry.getAttribute('position').count, elements: [...matrix.elements] }
}

/** Sorted by vertex count, then translation to the centimetre: near-equal places stay side by side. */
function byPlace(a: Place, b: Place): number {
  const key = (p: Place) => [p.vertices, ...[12, 13, 14].map((k) => Math.round((p.elements[k] ?? 0) * 100))]
  const [x, y] = [key(a), key(b)]
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0)
  return 0
}

// Model properties through the API, on every dialect: a converted glTF answers its nodes' extras and
// mesh and material names on GET /scene/properties (named nodes, pages), leaves them out of the
// GLB, and POST /scene/search finds nodes by them (eq/ne/contains without regard to case, number
// ranges, exists, node names, all conditions at once, pages with a total). Properties are
// read-only: attribute writes leave them alone, a revision replaces them, and another account's
// request is answered 404.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { Document, type Node, NodeIO } from '@gltf-transform/core'
import { problemOf } from '../support/api.ts'
import { shareFileRow, type Team, team } from '../support/file-rows.ts'
import { uploadFile } from '../support/files.ts'
import { glbJson } from '../support/gltf.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { until } from '../support/receiver.ts'

const HOUSE_IFC = new URL('../fixtures/conversion/house-properties.ifc', import.meta.url)

type Properties = Record<string, Record<string, Record<string, unknown>>>
interface TreeNode {
  id: string
  name: string
  children: TreeNode[]
}

/** A triangle mesh named `name` with a material named `material`. */
function triangle(document: Document, name: string, material: string) {
  const buffer = document.getRoot().listBuffers()[0] ?? document.createBuffer()
  const position = document
    .createAccessor()
    .setType('VEC3')
    .setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]))
    .setBuffer(buffer)
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', position)
    .setMaterial(document.createMaterial(material))
  return document.createMesh(name).addPrimitive(primitive)
}

/** Panels with extras (a fire rating, a width in metres, nested data) under a named group. */
async function panelsGlb(ratings: string[]): Promise<Buffer> {
  const document = new Document()
  const scene = document.createScene('Scene')
  const group = document.createNode('Panels').setExtras({ level: 2 })
  scene.addChild(group)
  ratings.forEach((rating, i) => {
    const node: Node = document
      .createNode(`Panel ${i}`)
      .setMesh(triangle(document, `panel-mesh-${i}`, i % 2 ? 'Oak' : 'Steel'))
      .setTranslation([i * 2, 0, 0])
      .setExtras({
        fireRating: rating,
        width: 0.5 + i,
        external: i === 0,
        maker: { name: 'ACME', codes: [7, 9] },
      })
    group.addChild(node)
  })
  return Buffer.from(await new NodeIO().writeBinary(document))
}

function flatten(nodes: TreeNode[]): TreeNode[] {
  return nodes.flatMap((node) => [node, ...flatten(node.children)])
}

for (const dialect of dialects()) {
  describe(`model properties on ${dialect.name}`, () => {
    let t: TestApp
    let m: Team
    let fileId: string
    let byName: Map<string, string>
    before(async () => {
      t = await startApp(dialect, { licenses: 1000 }, { conversions: true })
      m = await team(t.app)
      const file = await uploadFile(t.app, m.owner.headers, {
        name: 'panels.glb',
        data: await panelsGlb(['REI60', 'REI30', 'rei60']),
      })
      fileId = file._id
      await shareFileRow(t.app, fileId, m.viewer.account.id, 'viewer')
      await ready(fileId, 0)
      byName = new Map(flatten(await tree(fileId)).map((node) => [node.name, node.id]))
    })
    after(async () => t.close())

    const get = (url: string, headers = m.owner.headers) => t.app.inject({ method: 'GET', url, headers })
    const search = (body: Record<string, unknown>, headers = m.owner.headers) =>
      t.app.inject({ method: 'POST', url: '/scene/search', headers, payload: { file: fileId, ...body } })
    async function ready(id: string, version: number): Promise<void> {
      await until(
        `${id} v${version} ready`,
        async () => {
          const { file } = (await get(`/file/${id}`)).json() as { file: { state: string; __v: number } }
          assert.notEqual(file.state, 'error')
          return file.state === 'ready' && file.__v === version ? true : undefined
        },
        60_000,
      )
    }
    async function tree(id: string): Promise<TreeNode[]> {
      return ((await get(`/file/${id}/scene-tree`)).json() as { tree: TreeNode[] }).tree
    }
    const idOf = (name: string) => byName.get(name) ?? assert.fail(`no node ${name}`)
    async function found(where: unknown[], extra: Record<string, unknown> = {}) {
      const res = await search({ where, ...extra })
      assert.equal(res.statusCode, 200, res.body)
      return res.json() as { nodes: string[]; total: number; nextCursor: string | null }
    }
    const ids = (...names: string[]) => names.map(idOf).sort()

    test("every node's extras and mesh names, out of the GLB", async () => {
      const res = await get(`/scene/properties?file=${fileId}`)
      assert.equal(res.statusCode, 200, res.body)
      const body = res.json() as { nodeIdToProperties: Properties; units: unknown; nextCursor: unknown }
      assert.deepEqual(body.nodeIdToProperties[idOf('Panel 1')], {
        extras: {
          fireRating: 'REI30',
          width: 1.5,
          external: false,
          'maker.name': 'ACME',
          'maker.codes.0': 7,
          'maker.codes.1': 9,
        },
        Mesh: { name: 'panel-mesh-1', materials: 'Oak' },
      })
      assert.deepEqual(body.nodeIdToProperties[idOf('Panels')], { extras: { level: 2 } })
      assert.equal(Object.keys(body.nodeIdToProperties).length, 4)
      assert.deepEqual(body.units, {})
      assert.equal(body.nextCursor, null)
      const glb = await get(`/file/${fileId}/optimized`)
      assert.doesNotMatch(JSON.stringify(glbJson(glb.rawPayload)), /tesseraProperties/)
    })

    test('named nodes, pages by node, unknown nodes refused', async () => {
      const named = await get(
        `/scene/properties?file=${fileId}&node=${idOf('Panel 0')}&node=${idOf('Panel 2')}`,
      )
      assert.equal(named.statusCode, 200, named.body)
      const props = named.json().nodeIdToProperties as Properties
      assert.deepEqual(Object.keys(props).sort(), ids('Panel 0', 'Panel 2'))
      assert.equal(props[idOf('Panel 0')]?.extras?.external, true)
      const unknown = await get(`/scene/properties?file=${fileId}&node=nope`)
      assert.equal(unknown.statusCode, 400)
      assert.equal(problemOf(unknown).code, 'UNKNOWN_NODE')

      const seen: string[] = []
      let cursor: string | null = null
      do {
        const query: string = cursor ? `&cursor=${cursor}` : ''
        const page = (await get(`/scene/properties?file=${fileId}&limit=3${query}`)).json()
        seen.push(...Object.keys(page.nodeIdToProperties))
        cursor = page.nextCursor
      } while (cursor)
      assert.deepEqual(seen, [...byName.values()].sort())
      assert.equal((await get(`/scene/properties?file=${fileId}&cursor=AAAA`)).statusCode, 400)
    })

    test('search by value, range, existence and name, every condition at once', async () => {
      const rei60 = { group: 'extras', name: 'fireRating', op: 'eq', value: 'rEi60' }
      assert.deepEqual((await found([rei60])).nodes, ids('Panel 0', 'Panel 2'))
      assert.deepEqual((await found([{ ...rei60, op: 'ne' }])).nodes, ids('Panel 1'))
      assert.deepEqual((await found([{ ...rei60, op: 'contains', value: '30' }])).nodes, ids('Panel 1'))
      const wide = { group: 'extras', name: 'width', op: 'gt', value: 1 }
      assert.deepEqual((await found([wide])).nodes, ids('Panel 1', 'Panel 2'))
      assert.deepEqual((await found([wide, rei60])).nodes, ids('Panel 2'))
      assert.deepEqual((await found([{ ...wide, op: 'lte', value: 1.5 }])).nodes, ids('Panel 0', 'Panel 1'))
      assert.deepEqual(
        (await found([{ group: 'extras', name: 'external', op: 'eq', value: true }])).nodes,
        ids('Panel 0'),
      )
      assert.deepEqual((await found([{ group: 'extras', name: 'level', op: 'exists' }])).nodes, ids('Panels'))
      assert.deepEqual(
        (await found([{ group: 'Mesh', name: 'materials', op: 'eq', value: 'oak' }])).nodes,
        ids('Panel 1'),
      )
      assert.deepEqual(
        (await found([{ node: 'name', op: 'contains', value: 'PANEL ' }])).nodes,
        ids('Panel 0', 'Panel 1', 'Panel 2'),
      )
      assert.deepEqual((await found([{ node: 'name', op: 'eq', value: 'panels' }])).nodes, ids('Panels'))
      const none = await found([{ group: 'Pset_WallCommon', name: 'FireRating', op: 'exists' }])
      assert.deepEqual(none, { success: true, nodes: [], total: 0, nextCursor: null })
      // `%` and `_` are text, not patterns.
      assert.deepEqual((await found([{ ...rei60, op: 'contains', value: '%' }])).nodes, [])
    })

    test('search pages with a total; bad conditions are 400', async () => {
      const where = [{ node: 'name', op: 'contains', value: 'panel' }]
      const first = await found(where, { limit: 3 })
      assert.equal(first.total, 4)
      assert.equal(first.nodes.length, 3)
      assert.ok(first.nextCursor)
      const second = await found(where, { limit: 3, cursor: first.nextCursor })
      assert.deepEqual(
        [...first.nodes, ...second.nodes],
        [...byName.entries()]
          .filter(([n]) => n.startsWith('Panel'))
          .map(([, id]) => id)
          .sort(),
      )
      assert.equal(second.total, 4)
      assert.equal(second.nextCursor, null)
      for (const bad of [
        [{ group: 'extras', name: 'width', op: 'lt', value: 'wide' }],
        [{ group: 'extras', name: 'width', op: 'exists', value: 1 }],
        [{ group: 'extras', name: 'width', op: 'eq' }],
        [{ group: 'extras', name: 'width', op: 'like', value: 'x' }],
        [],
      ]) {
        const res = await search({ where: bad })
        assert.equal(res.statusCode, 400, JSON.stringify(bad))
        assert.equal(problemOf(res).code, 'VALIDATION_FAILED')
      }
      assert.equal(problemOf(await search({ where, cursor: 'AAAA' })).code, 'INVALID_CURSOR')
    })

    test('read-only and private: attribute writes leave them, viewers read, others get 404', async () => {
      const before = (await get(`/scene/properties?file=${fileId}`)).json()
      const write = await t.app.inject({
        method: 'POST',
        url: '/scene/attributes',
        headers: m.owner.headers,
        payload: {
          file: fileId,
          nodeIdToAttributes: { [idOf('Panel 0')]: { fireRating: 'none', extras: 1 } },
        },
      })
      assert.equal(write.statusCode, 200, write.body)
      assert.deepEqual((await get(`/scene/properties?file=${fileId}`)).json(), before)
      const viewer = await get(`/scene/properties?file=${fileId}`, m.viewer.headers)
      assert.deepEqual(viewer.json(), before)
      const outsider = await get(`/scene/properties?file=${fileId}`, m.stranger.headers)
      assert.equal(outsider.statusCode, 404)
      assert.equal(
        (await search({ where: [{ node: 'name', op: 'eq', value: 'x' }] }, m.stranger.headers)).statusCode,
        404,
      )
    })

    test('an IFC: property sets, quantities in SI units, type, materials and classification on its wall', async () => {
      const file = await uploadFile(t.app, m.owner.headers, {
        name: 'house.ifc',
        data: readFileSync(HOUSE_IFC),
      })
      await ready(file._id, 0)
      const wall = flatten(await tree(file._id)).find((node) => node.name === 'South Wall')
      assert.ok(wall, 'the south wall is in the tree')
      const res = await get(`/scene/properties?file=${file._id}&node=${wall.id}`)
      assert.equal(res.statusCode, 200, res.body)
      const body = res.json() as {
        nodeIdToProperties: Properties
        units: Record<string, Record<string, string>>
      }
      const groups = body.nodeIdToProperties[wall.id] ?? {}
      assert.equal(groups.IFC?.class, 'IfcWall')
      assert.equal(groups.IFC?.type, 'Cavity Wall 200')
      assert.equal(groups.IFC?.container, 'Ground Floor')
      // The occurrence's FireRating wins over its type's; the type's AcousticRating is kept.
      assert.equal(groups.Pset_WallCommon?.FireRating, 'REI60')
      assert.equal(groups.Pset_WallCommon?.AcousticRating, 'R45')
      // 5000 mm in the file: 5 m.
      assert.equal(groups.Qto_WallBaseQuantities?.Length, 5)
      assert.equal(body.units.Qto_WallBaseQuantities?.Length, 'm')
      assert.equal(body.units.Qto_WallBaseQuantities?.NetVolume, 'm³')
      assert.equal(groups.Materials?.['Layer 1'], 'Brick')
      assert.equal(groups.Classification?.Uniclass, 'Ss_25_10_30 Walls')
      const search = async (where: unknown[]) => {
        const found = await t.app.inject({
          method: 'POST',
          url: '/scene/search',
          headers: m.owner.headers,
          payload: { file: file._id, where },
        })
        assert.equal(found.statusCode, 200, found.body)
        return (found.json() as { nodes: string[] }).nodes
      }
      assert.deepEqual(
        await search([{ group: 'Pset_WallCommon', name: 'FireRating', op: 'eq', value: 'REI60' }]),
        [wall.id],
      )
      const long = [{ group: 'Qto_WallBaseQuantities', name: 'Length', op: 'gte', value: 4.5 }]
      assert.ok((await search(long)).includes(wall.id))
      const walls = await search([{ group: 'IFC', name: 'class', op: 'eq', value: 'IfcWall' }])
      assert.ok(walls.length >= 2 && walls.includes(wall.id))
    })

    test('a revision replaces them', async () => {
      await uploadFile(t.app, m.owner.headers, { name: 'panels.glb', data: await panelsGlb(['EI90']) })
      await ready(fileId, 1)
      byName = new Map(flatten(await tree(fileId)).map((node) => [node.name, node.id]))
      const props = (await get(`/scene/properties?file=${fileId}`)).json().nodeIdToProperties as Properties
      assert.deepEqual(Object.keys(props).sort(), ids('Panel 0', 'Panels'))
      assert.equal(props[idOf('Panel 0')]?.extras?.fireRating, 'EI90')
      assert.deepEqual((await found([{ group: 'extras', name: 'fireRating', op: 'exists' }])).total, 1)
      // The first revision's rows are deleted once the second's are published: after the commit
      // that makes the file ready, so a moment after it answers `ready`.
      const generations = async () =>
        t.db.kysely
          .selectFrom('scene_properties')
          .select('generation')
          .distinct()
          .where('file_id', '=', fileId)
          .execute()
      await until(
        'one generation left',
        async () => ((await generations()).length === 1 ? true : undefined),
        10_000,
      )
    })
  })
}

// How a conversion stores model properties (modules/scene/properties.ts), every dialect: a run's rows
// are written before the transaction that stores the tree and read by no one until that transaction
// publishes them; a run that does not publish leaves nothing once it has cleaned up; publishing a
// generation removes the older ones; deleting the file deletes them all.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import {
  type NodePropertiesInput,
  propertyGeneration,
  pruneSceneProperties,
  publishSceneProperties,
  replaceSceneTree,
  stageSceneProperties,
} from '../../src/modules/scene/index.ts'
import { signedIn } from '../support/api.ts'
import { insertFileRow } from '../support/file-rows.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

async function* entries(rating: string, count = 3): AsyncGenerator<NodePropertiesInput> {
  for (let i = 0; i < count; i++) {
    yield {
      nodeId: `n${i}`,
      groups: { Pset: { FireRating: rating, Width: i } },
      units: { Pset: { Width: 'm' } },
    }
  }
}

for (const dialect of dialects()) {
  describe(`model property generations on ${dialect.name}`, () => {
    let t: TestApp
    let user: Awaited<ReturnType<typeof signedIn>>
    let fileId: string
    before(async () => {
      t = await startApp(dialect, { licenses: 10 })
      user = await signedIn(t.app, 'owner')
      fileId = await insertFileRow(t.app, user.account.id)
      await t.db.kysely.transaction().execute((tx) =>
        replaceSceneTree(
          tx,
          fileId,
          [0, 1, 2].map((i) => ({ id: `n${i}`, name: `Node ${i}`, children: [] })),
        ),
      )
    })
    after(async () => t.close())

    const ratings = async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/scene/properties?file=${fileId}`,
        headers: user.headers,
      })
      assert.equal(res.statusCode, 200, res.body)
      const body = res.json() as { nodeIdToProperties: Record<string, { Pset: { FireRating: string } }> }
      return Object.values(body.nodeIdToProperties).map((groups) => groups.Pset.FireRating)
    }
    const generations = async () =>
      (
        await t.db.kysely
          .selectFrom('scene_properties')
          .select('generation')
          .distinct()
          .where('file_id', '=', fileId)
          .orderBy('generation')
          .execute()
      ).map((row) => row.generation)
    const stage = (generation: number, rating: string) =>
      stageSceneProperties(t.db, { fileId, generation }, entries(rating))
    const publish = (generation: number, counts: { nodes: number; properties: number }) =>
      t.db.kysely.transaction().execute((tx) => publishSceneProperties(tx, { fileId, generation }, counts))

    test('staged rows are read by no one until published', async () => {
      assert.deepEqual(await ratings(), [])
      const first = propertyGeneration(1, 1)
      const counts = await stage(first, 'REI30')
      assert.deepEqual(counts, { nodes: 3, properties: 6 })
      assert.deepEqual(await ratings(), [])
      await publish(first, counts)
      assert.deepEqual(await ratings(), ['REI30', 'REI30', 'REI30'])
      // A newer revision's run: staged beside the published one, which is still what is read.
      const second = propertyGeneration(2, 1)
      const next = await stage(second, 'REI60')
      assert.deepEqual(await ratings(), ['REI30', 'REI30', 'REI30'])
      assert.deepEqual(await generations(), [first, second])
      await publish(second, next)
      assert.deepEqual(await ratings(), ['REI60', 'REI60', 'REI60'])
      await pruneSceneProperties(t.db.kysely, fileId, { from: 0, below: second })
      assert.deepEqual(await generations(), [second])
      const keys = await t.db.kysely
        .selectFrom('scene_property_keys')
        .select('generation')
        .where('file_id', '=', fileId)
        .execute()
      assert.deepEqual([...new Set(keys.map((key) => key.generation))], [second])
    })

    test("a crashed run's rows: its retry starts clean, another run's rows are left alone", async () => {
      const crashed = propertyGeneration(3, 1)
      await stage(crashed, 'EI90')
      // A run taken over (its lease ran out): both runs' rows are apart.
      const takeover = propertyGeneration(3, 2)
      await stage(takeover, 'EI120')
      // The first run finds its job gone and removes only its own rows.
      await pruneSceneProperties(t.db.kysely, fileId, { from: crashed, below: crashed + 1 })
      assert.deepEqual(await generations(), [propertyGeneration(2, 1), takeover])
      // Staging the same generation again (a retry after a crash mid-write) replaces, never adds.
      await stage(takeover, 'EI120')
      const counts = await stage(takeover, 'EI120')
      await publish(takeover, counts)
      assert.deepEqual(await ratings(), ['EI120', 'EI120', 'EI120'])
      const rows = await t.db.kysely
        .selectFrom('scene_properties')
        .select('node_id')
        .where('generation', '=', takeover)
        .execute()
      assert.equal(rows.length, 6)
    })

    test('many nodes are pruned a batch at a time; deleting the file deletes every generation', async () => {
      const big = propertyGeneration(4, 1)
      await stageSceneProperties(t.db, { fileId, generation: big }, entries('R', 1234))
      await pruneSceneProperties(t.db.kysely, fileId, { from: big, below: big + 1 })
      assert.ok(!(await generations()).includes(big))
      await stage(propertyGeneration(5, 1), 'R')
      await t.db.kysely.deleteFrom('scene_nodes').where('file_id', '=', fileId).execute()
      await t.db.kysely.deleteFrom('files').where('id', '=', fileId).execute()
      assert.deepEqual(await generations(), [])
      for (const table of ['scene_property_keys', 'scene_property_sets'] as const) {
        const left = await t.db.kysely
          .selectFrom(table)
          .select('file_id')
          .where('file_id', '=', fileId)
          .execute()
        assert.deepEqual(left, [], table)
      }
    })
  })
}

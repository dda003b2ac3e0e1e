// The model's own properties through the SDK against a real `tessera serve` (SQLite, and PostgreSQL
// when TESSERA_TEST_DATABASE_URL is set), pages of 40 nodes: `files.properties` merges every page or
// asks for named nodes 100 at a time, `files.propertiesPage` gives one page, `files.search` one page
// of a search and `files.searchAll` every page, `files.searchFiles`/`searchFilesAll` across files
// (one file looked into per page); a link's guest calls them too. Then, against a
// scripted fetch: units merged over pages, a group named `__proto__` kept as a name, long node IDs
// asked in smaller calls.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type SceneNode, type SearchCondition, Tessera, TesseraLink } from '@tessera/client'
import { groupGlb } from '@tessera/server/test/support/extras-glb.ts'
import { type Instance, startTessera, targetNames } from './support/server.ts'

const PANELS = 120
const PAGE = 40

function flatten(nodes: SceneNode[]): SceneNode[] {
  return nodes.flatMap((node) => [node, ...flatten(node.children)])
}

const rating = (i: number) => ['REI60', 'REI30', 'rei60'][i % 3] ?? ''

for (const dialect of targetNames()) {
  describe(`model properties and search with @tessera/client on ${dialect}`, () => {
    let server: Instance
    let tessera: Tessera
    let fileId = ''
    let idOf: (name: string) => string
    /** Panel number by node ID (the group node has none). */
    let panelOf: Map<string, number>
    let allIds: string[] = []
    /** The paths and queries of the calls the SDK made (to count them). */
    const calls: string[] = []
    const callsTo = (path: string) => calls.filter((c) => c.startsWith(path)).length

    before(async () => {
      server = await startTessera(dialect, {
        TESSERA_SCENE_PAGE_MAX_NODES: String(PAGE),
        // A search across files looks into one file per page: searchFilesAll() follows pages.
        TESSERA_SEARCH_PAGE_MAX_FILES: '1',
      })
      const counting: typeof fetch = (input, init) => {
        const url = new URL(input instanceof Request ? input.url : String(input))
        calls.push(url.pathname + url.search)
        return globalThis.fetch(input, init)
      }
      tessera = await Tessera.connect({ url: server.url, ...server.admin, fetch: counting })
      const children = Array.from({ length: PANELS }, (_, i) => ({
        name: `Panel ${i}`,
        extras: { fireRating: rating(i), width: i, external: i === 0, maker: { name: 'ACME' } },
      }))
      const file = await tessera.files.upload(new Blob([groupGlb('Panels', children, { level: 2 })]), {
        name: 'panels.glb',
      })
      fileId = file._id
      await tessera.files.waitUntilReady(fileId, { timeoutMs: 120_000 })
      const nodes = flatten(await tessera.files.sceneTree(fileId))
      const byName = new Map(nodes.map((node) => [node.name, node.id]))
      idOf = (name) => byName.get(name) ?? assert.fail(`no node ${name}`)
      panelOf = new Map(nodes.filter((n) => n.name !== 'Panels').map((n) => [n.id, Number(n.name.slice(6))]))
      allIds = nodes.map((node) => node.id).sort()
      assert.equal(allIds.length, PANELS + 1)
    })
    after(async () => {
      await tessera?.close().catch(() => {})
      await server?.stop()
    })

    test('properties() follows every page; propertiesPage() gives one', async () => {
      calls.length = 0
      const all = await tessera.files.properties(fileId)
      assert.equal(callsTo('/scene/properties'), Math.ceil((PANELS + 1) / PAGE))
      assert.deepEqual(Object.keys(all.nodeIdToProperties).sort(), allIds)
      assert.deepEqual(all.nodeIdToProperties[idOf('Panel 1')], {
        extras: { fireRating: 'REI30', width: 1, external: false, 'maker.name': 'ACME' },
        Mesh: { name: 'Panel 1 mesh', materials: 'Steel' },
      })
      assert.deepEqual(all.nodeIdToProperties[idOf('Panels')], { extras: { level: 2 } })
      assert.deepEqual(all.units, {})
      assert.ok(!('nextCursor' in all))

      const seen: string[] = []
      let cursor: string | undefined
      let pages = 0
      do {
        const page = await tessera.files.propertiesPage(fileId, { limit: 30, ...(cursor ? { cursor } : {}) })
        assert.ok(!('success' in page))
        assert.ok(Object.keys(page.nodeIdToProperties).length <= 30)
        seen.push(...Object.keys(page.nodeIdToProperties))
        cursor = page.nextCursor ?? undefined
        pages++
      } while (cursor)
      assert.equal(pages, 5)
      assert.deepEqual(seen, allIds)
    })

    test('properties(file, nodes): those nodes, 100 per call, merged', async () => {
      calls.length = 0
      const named = await tessera.files.properties(fileId, [...allIds, idOf('Panel 0')])
      assert.equal(callsTo('/scene/properties'), 2, 'the 121 distinct nodes in calls of 100 and 21')
      assert.deepEqual(named, await tessera.files.properties(fileId))
      const two = await tessera.files.properties(fileId, [idOf('Panel 0'), idOf('Panel 2')])
      assert.deepEqual(Object.keys(two.nodeIdToProperties).sort(), [idOf('Panel 0'), idOf('Panel 2')].sort())
      assert.equal(two.nodeIdToProperties[idOf('Panel 0')]?.extras?.external, true)
      calls.length = 0
      assert.deepEqual(await tessera.files.properties(fileId, []), { nodeIdToProperties: {}, units: {} })
      assert.equal(callsTo('/scene/properties'), 0)
      await assert.rejects(tessera.files.properties(fileId, ['not-a-node']), { code: 'UNKNOWN_NODE' })
    })

    test('search() gives a page with the total; searchAll() every node ID, page by page', async () => {
      const rei60: SearchCondition = { group: 'extras', name: 'fireRating', op: 'eq', value: 'REI60' }
      const expected = allIds.filter((id) => panelOf.has(id) && (panelOf.get(id) ?? 0) % 3 !== 1)
      assert.equal(expected.length, 80)
      const first = await tessera.files.search(fileId, [rei60], { limit: 30 })
      assert.deepEqual(Object.keys(first).sort(), ['nextCursor', 'nodes', 'total'])
      assert.equal(first.total, 80)
      assert.deepEqual(first.nodes, expected.slice(0, 30))
      assert.ok(first.nextCursor)
      const second = await tessera.files.search(fileId, [rei60], { limit: 30, cursor: first.nextCursor })
      assert.deepEqual(second.nodes, expected.slice(30, 60))

      calls.length = 0
      const iterated: string[] = []
      for await (const id of tessera.files.searchAll(fileId, [rei60], { limit: 25 })) iterated.push(id)
      assert.deepEqual(iterated, expected)
      assert.equal(callsTo('/scene/search'), 4)
      calls.length = 0
      assert.deepEqual(await tessera.files.searchAll(fileId, [rei60]), expected)
      assert.equal(callsTo('/scene/search'), 1, 'the server’s largest page by default')
      const page = await tessera.files.searchAll(fileId, [rei60], { limit: 5 }).page()
      assert.deepEqual(page.items, expected.slice(0, 5))

      const wide: SearchCondition = { group: 'extras', name: 'width', op: 'gte', value: 118 }
      const named: SearchCondition = { node: 'name', op: 'contains', value: 'panel 11' }
      assert.deepEqual(
        await tessera.files.searchAll(fileId, [wide, named]),
        [idOf('Panel 118'), idOf('Panel 119')].sort(),
      )
      const none = await tessera.files.search(fileId, [{ group: 'Pset_WallCommon', name: 'x', op: 'exists' }])
      assert.deepEqual(none, { nodes: [], total: 0, nextCursor: null })
      await assert.rejects(tessera.files.search(fileId, [{ ...wide, value: 'wide' }]), {
        code: 'VALIDATION_FAILED',
      })
    })

    test('searchFiles() gives a page of files; searchFilesAll() follows pages, empty ones too', async () => {
      const rei60: SearchCondition = { group: 'extras', name: 'fireRating', op: 'eq', value: 'REI60' }
      const children = [
        { name: 'Door', extras: { fireRating: 'REI60' } },
        { name: 'Window', extras: { fireRating: 'REI30' } },
      ]
      const other = await tessera.files.upload(new Blob([groupGlb('Openings', children)]), { name: 'b.glb' })
      await tessera.files.waitUntilReady(other._id, { timeoutMs: 120_000 })
      const first = await tessera.files.searchFiles([rei60])
      assert.deepEqual(Object.keys(first).sort(), ['files', 'nextCursor'])
      assert.ok(first.nextCursor, 'one file looked into per page: more follow')
      calls.length = 0
      const found = await tessera.files.searchFilesAll([rei60])
      const expected = [
        { file: fileId, name: 'panels.glb', parent: '/', role: 'owner', matches: 80 },
        { file: other._id, name: 'b.glb', parent: '/', role: 'owner', matches: 1 },
      ].sort((a, b) => (a.file < b.file ? -1 : 1))
      assert.deepEqual(found, expected)
      // Two pages of one file each, and a third that finds there is nothing after the second.
      assert.equal(callsTo('/scene/search/files'), 3)
      const windows = await tessera.files.searchFilesAll([{ node: 'name', op: 'eq', value: 'window' }])
      assert.deepEqual(
        windows.map((f) => f.file),
        [other._id],
      )
      await assert.rejects(tessera.files.searchFiles([rei60], { limit: 201 }), { code: 'VALIDATION_FAILED' })
      await tessera.files.delete(other._id)
    })

    test("a link's guest reads and searches the properties", async () => {
      const { token } = await tessera.links.create(fileId)
      const guest = await TesseraLink.open({ url: server.url, token: token ?? '' })
      try {
        const props = await guest.files.properties(fileId, [idOf('Panel 3')])
        assert.equal(props.nodeIdToProperties[idOf('Panel 3')]?.extras?.width, 3)
        assert.equal(
          Object.keys((await guest.files.properties(fileId)).nodeIdToProperties).length,
          PANELS + 1,
        )
        const found = await guest.files.searchAll(fileId, [{ node: 'name', op: 'eq', value: 'panel 7' }])
        assert.deepEqual(found, [idOf('Panel 7')])
        const across = await guest.files.searchFilesAll([{ node: 'name', op: 'eq', value: 'panel 7' }])
        assert.deepEqual(
          across.map((f) => [f.file, f.role, f.matches]),
          [[fileId, 'viewer', 1]],
        )
      } finally {
        guest.close()
        await tessera.links.revoke(fileId)
      }
    })
  })
}

describe('properties() against a scripted server', () => {
  /** A client whose calls are answered by `answer` (no login: an auth token, no session). */
  async function scripted(answer: (url: URL) => unknown) {
    const urls: URL[] = []
    const fetch: typeof globalThis.fetch = async (input) => {
      const url = new URL(input instanceof Request ? input.url : String(input))
      urls.push(url)
      return Response.json({ success: true, ...(answer(url) as object) })
    }
    const tessera = await Tessera.connect({
      url: 'http://tessera.test',
      authToken: 't',
      session: false,
      fetch,
    })
    return { tessera, urls }
  }

  test('units are merged over pages; a group named __proto__ stays a name', async () => {
    const pages = [
      {
        nodeIdToProperties: { a: { Qto: { Length: 5 } } },
        units: { Qto: { Length: 'm' } },
        nextCursor: 'c1',
      },
      {
        nodeIdToProperties: JSON.parse('{"b": {"Qto": {"Area": 2}, "__proto__": {"polluted": 1}}}'),
        units: JSON.parse('{"Qto": {"Area": "m²"}, "__proto__": {"polluted": "m"}}'),
        nextCursor: null,
      },
    ]
    const { tessera, urls } = await scripted((url) => pages[url.searchParams.get('cursor') === 'c1' ? 1 : 0])
    const all = await tessera.files.properties('f')
    assert.deepEqual(
      urls.map((u) => u.searchParams.get('cursor')),
      [null, 'c1'],
    )
    assert.deepEqual(Object.keys(all.nodeIdToProperties), ['a', 'b'])
    assert.deepEqual(Object.keys(all.units), ['Qto', '__proto__'])
    assert.deepEqual(all.units.Qto, { Length: 'm', Area: 'm²' })
    assert.equal(Object.getOwnPropertyDescriptor(all.units, '__proto__')?.value?.polluted, 'm')
    assert.equal(({} as Record<string, unknown>).polluted, undefined)
    assert.equal(Object.getPrototypeOf(all.units), Object.prototype)
  })

  test('named nodes: 100 per call, fewer when long IDs would make a long URL', async () => {
    const { tessera, urls } = await scripted((url) => ({
      nodeIdToProperties: Object.fromEntries(url.searchParams.getAll('node').map((n) => [n, {}])),
      units: {},
      nextCursor: null,
    }))
    const short = Array.from({ length: 250 }, (_, i) => `n${i}`)
    const answered = await tessera.files.properties('f', short)
    assert.deepEqual(
      urls.map((u) => u.searchParams.getAll('node').length),
      [100, 100, 50],
    )
    assert.equal(Object.keys(answered.nodeIdToProperties).length, 250)
    urls.length = 0
    const long = Array.from({ length: 40 }, (_, i) => `${i}`.padEnd(512, 'x'))
    await tessera.files.properties('f', long)
    assert.ok(urls.length > 1, `${urls.length} calls`)
    assert.ok(urls.every((u) => u.search.length < 9000))
    assert.deepEqual(
      urls.flatMap((u) => u.searchParams.getAll('node')),
      long,
    )
  })
})

// POST /scene/search/files on every dialect: which of the files a caller may read hold matching nodes.
// Converted models: the owner finds their files and not a stranger's, a viewer the file shared with
// them (as a viewer), a link session its one file; node-name conditions; nothing found; bad input
// 400. Files written straight into the tables (their properties staged and published as a conversion
// does): pages bounded by the files looked into and by time, gone through to the end, each file once.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { publishSceneProperties, stageSceneProperties } from '../../src/modules/scene/index.ts'
import { linkGuest, signedIn } from '../support/api.ts'
import { groupGlb } from '../support/extras-glb.ts'
import { insertFileRow, shareFileRow } from '../support/file-rows.ts'
import { uploadFile } from '../support/files.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { until } from '../support/receiver.ts'

interface FileMatch {
  file: string
  name: string
  parent: string
  role: string
  matches: number
}
interface Answer {
  files: FileMatch[]
  nextCursor: string | null
}

const REI60 = { group: 'extras', name: 'fireRating', op: 'eq', value: 'REI60' }

/** A panel group whose panels carry these fire ratings (extras.fireRating). */
function panels(ratings: string[]): Buffer {
  return Buffer.from(
    groupGlb(
      'Panels',
      ratings.map((fireRating, i) => ({ name: `Panel ${i}`, extras: { fireRating } })),
    ),
  )
}

for (const dialect of dialects()) {
  describe(`search across files on ${dialect.name}`, () => {
    let t: TestApp
    let owner: Awaited<ReturnType<typeof signedIn>>
    let viewer: Awaited<ReturnType<typeof signedIn>>
    let stranger: Awaited<ReturnType<typeof signedIn>>
    const ids: Record<string, string> = {}

    before(async () => {
      t = await startApp(dialect, { licenses: 100 }, { conversions: true })
      owner = await signedIn(t.app, 'owner')
      viewer = await signedIn(t.app, 'viewer')
      stranger = await signedIn(t.app, 'stranger')
      const models: [string, typeof owner, string[]][] = [
        ['a.glb', owner, ['REI60', 'REI30', 'rei60']],
        ['b.glb', owner, ['REI30']],
        ['c.glb', stranger, ['REI60']],
      ]
      for (const [name, who, ratings] of models) {
        ids[name] = (await uploadFile(t.app, who.headers, { name, data: panels(ratings) }))._id
      }
      await shareFileRow(t.app, ids['a.glb'] ?? '', viewer.account.id, 'viewer')
      for (const [name, who] of models) await ready(ids[name] ?? '', who.headers)
    })
    after(async () => t.close())

    async function ready(id: string, headers: Record<string, string>): Promise<void> {
      await until(
        `${id} ready`,
        async () => {
          const res = await t.app.inject({ method: 'GET', url: `/file/${id}`, headers })
          const { state } = res.json().file as { state: string }
          assert.notEqual(state, 'error')
          return state === 'ready' ? true : undefined
        },
        60_000,
      )
    }
    const post = (payload: unknown, headers: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: '/scene/search/files', headers, payload: payload as object })
    async function search(where: unknown[], headers: Record<string, string>): Promise<Answer> {
      const res = await post({ where }, headers)
      assert.equal(res.statusCode, 200, res.body)
      return res.json() as Answer
    }

    test('the owner finds their own files, with how many nodes match; not a stranger’s', async () => {
      const found = await search([REI60], owner.headers)
      assert.deepEqual(found, {
        success: true,
        files: [{ file: ids['a.glb'], name: 'a.glb', parent: '/', role: 'owner', matches: 2 }],
        nextCursor: null,
      })
      const byName = await search([{ node: 'name', op: 'contains', value: 'panel 0' }], owner.headers)
      assert.deepEqual(
        byName.files.map((f) => [f.name, f.matches]),
        [
          ['a.glb', 1],
          ['b.glb', 1],
        ],
      )
      const both = await search([REI60, { node: 'name', op: 'eq', value: 'PANEL 2' }], owner.headers)
      assert.deepEqual(
        both.files.map((f) => [f.name, f.matches]),
        [['a.glb', 1]],
      )
      assert.deepEqual(await search([{ group: 'extras', name: 'nothing', op: 'exists' }], owner.headers), {
        success: true,
        files: [],
        nextCursor: null,
      })
    })

    test('a viewer finds the shared file as a viewer, a stranger only their own, a link session its file', async () => {
      const seen = await search([REI60], viewer.headers)
      assert.deepEqual(
        seen.files.map((f) => [f.file, f.role]),
        [[ids['a.glb'], 'viewer']],
      )
      const theirs = await search([REI60], stranger.headers)
      assert.deepEqual(
        theirs.files.map((f) => [f.file, f.role, f.matches]),
        [[ids['c.glb'], 'owner', 1]],
      )

      const guest = await linkGuest(t.app, owner.headers, ids['b.glb'] ?? '')
      const everyPanel = await search([{ group: 'extras', name: 'fireRating', op: 'exists' }], guest)
      assert.deepEqual(
        everyPanel.files.map((f) => [f.file, f.role, f.matches]),
        [[ids['b.glb'], 'viewer', 1]],
      )
    })

    test('bad input is 400: a condition that cannot work, a cursor not answered, a page past 200', async () => {
      const cases: [unknown, string][] = [
        [{ where: [{ group: 'extras', name: 'fireRating', op: 'lt', value: 'REI60' }] }, 'VALIDATION_FAILED'],
        [{ where: [] }, 'VALIDATION_FAILED'],
        [{ where: [REI60], limit: 201 }, 'VALIDATION_FAILED'],
        [{ where: [REI60], file: ids['a.glb'] }, 'VALIDATION_FAILED'],
        [{ where: [REI60], cursor: 'AAAA' }, 'INVALID_CURSOR'],
      ]
      for (const [payload, code] of cases) {
        const res = await post(payload, owner.headers)
        assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`)
        assert.equal(res.json().code, code, res.body)
      }
      assert.equal((await post({ where: [REI60] }, {})).statusCode, 401)
    })
  })

  describe(`pages of a search across files on ${dialect.name}`, () => {
    let t: TestApp
    let pager: Pager
    before(async () => {
      t = await startApp(dialect, { licenses: 10, searchPageMaxFiles: 4 })
      pager = await seedPager(t, 13)
    })
    after(async () => t.close())

    test('a page looks into at most TESSERA_SEARCH_PAGE_MAX_FILES files; the pages hold each match once', async () => {
      const answers = await pager.pages({ where: RATED_60 })
      // 13 files, 4 looked into per page: 4 pages, the last with a null cursor.
      const perPage = [0, 4, 8, 12].map(
        (from) => pager.files.slice(from, from + 4).filter((f) => f.rating === 60).length,
      )
      assert.deepEqual(
        answers.map((a) => a.files.length),
        perPage,
      )
      assert.deepEqual(
        answers.flatMap((a) => a.files.map((f) => f.file)),
        pager.matching(),
      )
      assert.ok(answers.every((a) => a.files.every((f) => f.matches === 2)))
    })

    test('`limit` ends a page at that many files; an empty page may still have a cursor', async () => {
      const one = await pager.pages({ where: RATED_60, limit: 1 })
      assert.deepEqual(
        one.flatMap((a) => a.files.map((f) => f.file)),
        pager.matching(),
      )
      assert.ok(one.every((a) => a.files.length <= 1))
      const none = await pager.pages({ where: [{ group: 'Pset', name: 'Rating', op: 'gt', value: 60 }] })
      assert.deepEqual(
        none.map((a) => a.files.length),
        [0, 0, 0, 0],
      )
      assert.deepEqual(
        none.map((a) => a.nextCursor === null),
        [false, false, false, true],
      )
    })
  })

  describe(`the rate of searches across files on ${dialect.name}`, () => {
    let t: TestApp
    before(async () => {
      t = await startApp(dialect, { licenses: 10, searchFilesRate: 2 })
    })
    after(async () => t.close())

    test('TESSERA_SEARCH_FILES_RATE calls per account a minute, then 429 with Retry-After; others unaffected', async () => {
      const [one, two] = [await signedIn(t.app, 'busy'), await signedIn(t.app, 'calm')]
      const ask = (headers: Record<string, string>) =>
        t.app.inject({ method: 'POST', url: '/scene/search/files', headers, payload: { where: RATED_60 } })
      const first = await ask(one.headers)
      assert.equal(first.statusCode, 200, first.body)
      assert.equal(first.headers['ratelimit-policy'], '"search-files";q=2;w=60')
      assert.match(String(first.headers.ratelimit), /^"search-files";r=1;t=\d+$/)
      assert.equal((await ask(one.headers)).statusCode, 200)
      const refused = await ask(one.headers)
      assert.equal(refused.statusCode, 429, refused.body)
      assert.equal(refused.json().code, 'TOO_MANY_REQUESTS')
      assert.match(refused.json().detail, /TESSERA_SEARCH_FILES_RATE/)
      assert.ok(Number(refused.headers['retry-after']) > 0)
      assert.equal((await ask(two.headers)).statusCode, 200)
    })
  })

  describe(`the time bound of a page across files on ${dialect.name}`, () => {
    /** Files per statement (FILES_PER_STATEMENT), and enough files for a few pages of two chunks. */
    const chunk = dialect.name === 'sqlite' ? 1 : 25
    const FILES = dialect.name === 'sqlite' ? 20 : 60
    let t: TestApp
    let pager: Pager
    before(async () => {
      t = await startApp(dialect, { licenses: 10, searchPageMaxMs: 300 })
      pager = await seedPager(t, FILES)
    })
    after(async () => t.close())

    test('a page ends at the first chunk of files past TESSERA_SEARCH_PAGE_MAX_MS', async () => {
      assert.equal((await pager.pages({ where: RATED_60, limit: 200 })).length, 1, 'unhurried: one page')
      // The statements a builder runs go through the instance's executor (not Kysely#executeQuery).
      const executor = t.db.kysely.getExecutor()
      const original = executor.executeQuery.bind(executor)
      // Each chunk of files takes 200 ms to read its keys: past the page's 300 ms after the second.
      const slowed: typeof executor.executeQuery = async (query) => {
        if (/from "scene_property_sets"/.test(query.sql))
          await new Promise((resolve) => setTimeout(resolve, 200))
        return original(query)
      }
      Object.defineProperty(executor, 'executeQuery', { value: slowed, configurable: true, writable: true })
      try {
        const answers = await pager.pages({ where: RATED_60, limit: 200 })
        assert.equal(answers.length, Math.ceil(FILES / (2 * chunk)))
        assert.deepEqual(
          answers.flatMap((a) => a.files.map((f) => f.file)),
          pager.matching(),
        )
      } finally {
        Reflect.deleteProperty(executor, 'executeQuery')
      }
    })
  })
}

const RATED_60 = [{ group: 'Pset', name: 'Rating', op: 'gte', value: 60 }]

interface Pager {
  /** The files, in ID order; those with a rating of 60 match RATED_60. */
  files: { id: string; rating: number }[]
  matching(): string[]
  /** Every page of a search, followed to the null cursor. */
  pages(body: Record<string, unknown>): Promise<Answer[]>
}

/** `count` files of an account, every third rated 60, written straight into the tables. */
async function seedPager(t: TestApp, count: number): Promise<Pager> {
  const owner = await signedIn(t.app, 'pager')
  const files: Pager['files'] = []
  for (let i = 0; i < count; i += 1) {
    const id = await insertFileRow(t.app, owner.account.id, { name: `m${i}.ifc` })
    const rating = i % 3 === 0 ? 60 : 30
    await withProperties(t, id, [rating, rating])
    files.push({ id, rating })
  }
  files.sort((a, b) => (a.id < b.id ? -1 : 1))
  async function pages(body: Record<string, unknown>): Promise<Answer[]> {
    const answers: Answer[] = []
    let cursor: string | null | undefined
    do {
      const payload = { ...body, ...(cursor ? { cursor } : {}) }
      const res = await t.app.inject({
        method: 'POST',
        url: '/scene/search/files',
        headers: owner.headers,
        payload,
      })
      assert.equal(res.statusCode, 200, res.body)
      const answer = res.json() as Answer
      answers.push(answer)
      cursor = answer.nextCursor
    } while (cursor && answers.length < 100)
    return answers
  }
  const matching = () => files.filter((f) => f.rating === 60).map((f) => f.id)
  return { files, matching, pages }
}

/** Nodes with `Pset.Rating`, staged and published as a conversion does. */
async function withProperties(t: TestApp, fileId: string, ratings: number[]): Promise<void> {
  const set = { fileId, generation: 100 }
  async function* entries() {
    for (const [i, Rating] of ratings.entries())
      yield { nodeId: `n${i}`, groups: { Pset: { Rating } }, units: {} }
  }
  const counts = await stageSceneProperties(t.db, set, entries())
  await publishSceneProperties(t.db.kysely, set, counts)
}

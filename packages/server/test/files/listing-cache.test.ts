// Listings and file records answered from memory on PostgreSQL (modules/files/listing/postgres/cache.ts) across
// processes: two app instances on one database, each with its own pool and LISTEN connection (= two
// processes' caches). For every write that changes a listing, the instance that wrote AND the other
// one answer the change on their very next request (the writer waits for every feed before it
// answers); a change made outside either (a worker's conversion outcome, another process's SQL) is
// seen within WITHIN_MS. Each case first proves the cache answers: a change that fires no trigger
// (session_replication_role = replica) goes unseen while the page is kept. A killed LISTEN
// connection makes both read rows until it is back. A process whose notifications come late (a slow
// link) still answers the writer's change on its next request: the writer waited for it. PostgreSQL only: SQLite keeps no listings.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { buildApp } from '../../src/app/app.ts'
import { markFailed, markReady } from '../../src/modules/files/index.ts'
import { type Db, openDatabase } from '../../src/platform/db/index.ts'
import { signedIn } from '../support/api.ts'
import { uploadFile } from '../support/files.ts'
import { dialects, startApp, type TestApp, testKeys } from '../support/harness.ts'
import { slowLink } from '../support/slow-link.ts'

const WITHIN_MS = 100
const SLOW_MS = 150

type Headers = Record<string, string>
type Member = Awaited<ReturnType<typeof signedIn>>
interface Listed {
  _id: string
  name: string
  state: string
  __v: number
  roles: unknown[]
  favoritedBy: string[]
  allowLivePublicMeetings: boolean
  role?: string
}

async function listed(app: FastifyInstance, headers: Headers, url: string): Promise<Listed[]> {
  const res = await app.inject({ method: 'GET', url, headers })
  assert.equal(res.statusCode, 200, res.body)
  return (res.json() as { files: Listed[] }).files
}

const ROOT = '/file/dir/private/'
const SHARED = '/file/dir/shared/'

for (const dialect of dialects().filter((d) => d.name === 'postgres')) {
  describe(`listing cache across instances on ${dialect.name}`, () => {
    let t: TestApp
    let db2: Db
    let other: FastifyInstance
    let schema: string
    let admin: pg.Client
    let apps: FastifyInstance[]
    before(async () => {
      t = await startApp(dialect, { licenses: 1000 })
      schema = (t.db.description.match(/schema (\w+)/) ?? [])[1] ?? 'public'
      db2 = await openDatabase({
        databaseUrl: t.config.databaseUrl,
        dataDir: t.config.dataDir,
        pgSchema: schema,
      })
      other = await buildApp(t.config, { db: db2, keys: await testKeys(), conversions: false })
      await other.ready()
      admin = new pg.Client({ connectionString: t.config.databaseUrl })
      await admin.connect()
      await feedsUp(admin, schema, 2)
      apps = [t.app, other]
    })
    after(async () => {
      await admin.end()
      await other.close()
      await db2.close()
      await t.close()
    })

    /** Both instances list `url` twice (the second from memory), then a silent rename goes unseen. */
    async function warmAndProveCached(who: Member, url: string, fileId: string) {
      const before = await listed(t.app, who.headers, url)
      for (const app of [...apps, ...apps]) assert.deepEqual(await listed(app, who.headers, url), before)
      // Moves `updated` (a read would show it, view-cache.ts included) without a NOTIFY.
      await silently(admin, schema, 'update files set updated_at = updated_at + 1 where id = $1', [fileId])
      for (const app of apps)
        assert.deepEqual(await listed(app, who.headers, url), before, 'answered from memory')
      await silently(admin, schema, 'update files set updated_at = updated_at - 1 where id = $1', [fileId])
      return before
    }

    /** The writer's instance and the other both show `check` on their next request. */
    async function seenByBoth(who: Member, url: string, check: (files: Listed[]) => void) {
      for (const app of apps) check(await listed(app, who.headers, url))
    }

    test('upload, revision and delete: the writer and the other instance at once', async () => {
      const owner = await signedIn(t.app)
      const first = await uploadFile(t.app, owner.headers, { name: 'a.stl' })
      await warmAndProveCached(owner, ROOT, first._id)
      const second = await uploadFile(other, owner.headers, { name: 'b.stl' })
      await seenByBoth(owner, ROOT, (files) =>
        assert.deepEqual(
          files.map((f) => f.name),
          ['a.stl', 'b.stl'],
        ),
      )

      await warmAndProveCached(owner, ROOT, first._id)
      const revised = await uploadFile(t.app, owner.headers, {
        name: 'a.stl',
        data: Buffer.from('solid v2\n'),
      })
      assert.equal(revised._id, first._id)
      await seenByBoth(owner, ROOT, (files) => assert.equal(files[0]?.__v, revised.__v))

      await warmAndProveCached(owner, ROOT, second._id)
      const del = await other.inject({ method: 'DELETE', url: `/file/${second._id}`, headers: owner.headers })
      assert.equal(del.statusCode, 200, del.body)
      await seenByBoth(owner, ROOT, (files) =>
        assert.deepEqual(
          files.map((f) => f.name),
          ['a.stl'],
        ),
      )
    })

    test('folders of a directory move with its files', async () => {
      const owner = await signedIn(t.app)
      const file = await uploadFile(t.app, owner.headers, { name: 'x.stl', parent: '/site' })
      const url = `${ROOT}?path=/`
      const folders = async (app: FastifyInstance) =>
        ((await app.inject({ method: 'GET', url, headers: owner.headers })).json() as { folders: unknown[] })
          .folders
      for (const app of [...apps, ...apps])
        assert.deepEqual(await folders(app), [{ name: 'site', path: '/site', files: 1 }])
      await uploadFile(other, owner.headers, { name: 'y.stl', parent: '/site/north' })
      for (const app of apps)
        assert.deepEqual(await folders(app), [{ name: 'site', path: '/site', files: 2 }])
      assert.ok(file._id)
    })

    test('share and revoke: the owner’s roles and the grantee’s shared listing', async () => {
      const owner = await signedIn(t.app)
      const grantee = await signedIn(t.app)
      const file = await uploadFile(t.app, owner.headers, { name: 'shared.stl' })
      await warmAndProveCached(owner, ROOT, file._id)
      for (const app of [...apps, ...apps]) assert.deepEqual(await listed(app, grantee.headers, SHARED), [])
      const share = await t.app.inject({
        method: 'POST',
        url: `/file/${file._id}/share`,
        headers: owner.headers,
        payload: { email: grantee.account.email, role: 'editor' },
      })
      assert.equal(share.statusCode, 200, share.body)
      await seenByBoth(owner, ROOT, (files) => assert.equal(files[0]?.roles.length, 1))
      await seenByBoth(grantee, SHARED, (files) =>
        assert.deepEqual(
          files.map((f) => f.role),
          ['editor'],
        ),
      )

      // The grantee's page holds the owner's file: a change of it reaches the grantee's page too.
      await warmAndProveCached(grantee, SHARED, file._id)
      const live = await other.inject({
        method: 'PUT',
        url: `/file/${file._id}/live-meetings`,
        headers: owner.headers,
        payload: { allow: true },
      })
      assert.equal(live.statusCode, 200, live.body)
      await seenByBoth(grantee, SHARED, (files) => assert.equal(files[0]?.allowLivePublicMeetings, true))

      const revoke = await other.inject({
        method: 'DELETE',
        url: `/file/${file._id}/share/${encodeURIComponent(grantee.account.email)}`,
        headers: owner.headers,
      })
      assert.equal(revoke.statusCode, 200, revoke.body)
      await seenByBoth(grantee, SHARED, (files) => assert.deepEqual(files, []))
      await seenByBoth(owner, ROOT, (files) => assert.deepEqual(files[0]?.roles, []))
    })

    test('a favourite and a link move the record', async () => {
      const owner = await signedIn(t.app)
      const file = await uploadFile(t.app, owner.headers, { name: 'star.stl' })
      await warmAndProveCached(owner, ROOT, file._id)
      const star = await t.app.inject({
        method: 'PUT',
        url: `/file/${file._id}/favourite`,
        headers: owner.headers,
      })
      assert.equal(star.statusCode, 200, star.body)
      await seenByBoth(owner, ROOT, (files) => assert.deepEqual(files[0]?.favoritedBy, [owner.account.email]))

      const [beforeLink] = await warmAndProveCached(owner, ROOT, file._id)
      const link = await other.inject({
        method: 'POST',
        url: `/file/${file._id}/link`,
        headers: owner.headers,
        payload: {},
      })
      assert.ok(link.statusCode < 300, link.body)
      await seenByBoth(owner, ROOT, (files) => assert.ok((files[0]?.__v ?? 0) > (beforeLink?.__v ?? 0)))
    })

    test('conversion outcome (a worker) and attribute writes', async () => {
      const owner = await signedIn(t.app)
      const ready = await uploadFile(t.app, owner.headers, { name: 'r.stl' })
      const failed = await uploadFile(t.app, owner.headers, { name: 's.stl' })
      await warmAndProveCached(owner, ROOT, ready._id)
      // A worker answers no request: the others see its commit within the notification delay.
      const asset = { key: null, size: 0, sha256: '' }
      await markReady(t.db.kysely, ready._id, {
        roots: [],
        optimized: asset,
        thumbnail: null,
        now: Date.now(),
      })
      await markFailed(db2.kysely, failed._id, 'broken', Date.now())
      await seenWithin(
        apps,
        owner.headers,
        ROOT,
        (files) => files.map((f) => f.state).join() === 'ready,error',
      )

      // Attribute writes touch no files row: the kept page stays right (equal to a fresh read).
      const [kept] = await warmAndProveCached(owner, ROOT, ready._id)
      const write = await t.app.inject({
        method: 'POST',
        url: '/scene/attributes',
        headers: owner.headers,
        payload: { file: ready._id, nodeIdToAttributes: {} },
      })
      assert.ok(write.statusCode < 500, write.body)
      await seenByBoth(owner, ROOT, (files) => assert.deepEqual(files[0], kept))
    })

    test('a file record and its scene tree: kept, and dropped with the file or the share', async () => {
      const owner = await signedIn(t.app)
      const grantee = await signedIn(t.app)
      const file = await uploadFile(t.app, owner.headers, { name: 'rec.stl' })
      const record = (app: FastifyInstance, who: Member) =>
        app.inject({ method: 'GET', url: `/file/${file._id}`, headers: who.headers })
      for (const app of apps) assert.equal((await record(app, grantee)).statusCode, 404)
      const share = await other.inject({
        method: 'POST',
        url: `/file/${file._id}/share`,
        headers: owner.headers,
        payload: { email: grantee.account.email, role: 'viewer' },
      })
      assert.equal(share.statusCode, 200, share.body)
      for (const app of [...apps, ...apps])
        assert.equal((await record(app, grantee)).json().file.role, 'viewer')
      const shown = (await record(t.app, grantee)).json().file.updated
      // Kept: a change that fires no trigger goes unseen.
      await silently(admin, schema, 'update files set updated_at = updated_at + 1 where id = $1', [file._id])
      for (const app of apps) assert.equal((await record(app, grantee)).json().file.updated, shown)
      await silently(admin, schema, 'update files set updated_at = updated_at - 1 where id = $1', [file._id])

      const editor = await t.app.inject({
        method: 'POST',
        url: `/file/${file._id}/share`,
        headers: owner.headers,
        payload: { email: grantee.account.email, role: 'editor' },
      })
      assert.equal(editor.statusCode, 200, editor.body)
      for (const app of apps) assert.equal((await record(app, grantee)).json().file.role, 'editor')

      // A conversion's outcome (a worker: no request waits) reaches the tree within the delay.
      const tree = (app: FastifyInstance) =>
        app.inject({ method: 'GET', url: `/file/${file._id}/scene-tree`, headers: grantee.headers })
      for (const app of [...apps, ...apps]) assert.equal((await tree(app)).statusCode, 409)
      const asset = { key: `optimized/${file._id}.glb`, size: 1, sha256: '' }
      await markReady(t.db.kysely, file._id, {
        roots: [],
        optimized: asset,
        thumbnail: null,
        now: Date.now(),
      })
      for (const app of apps) {
        const start = Date.now()
        while ((await tree(app)).statusCode !== 200) {
          assert.ok(Date.now() - start < WITHIN_MS, 'the tree is still not ready')
          await sleep(2)
        }
      }

      const revoke = await t.app.inject({
        method: 'DELETE',
        url: `/file/${file._id}/share/${encodeURIComponent(grantee.account.email)}`,
        headers: owner.headers,
      })
      assert.equal(revoke.statusCode, 200, revoke.body)
      for (const app of apps) {
        assert.equal((await record(app, grantee)).statusCode, 404)
        assert.equal((await tree(app)).statusCode, 404)
      }
    })

    test('a change by another process’s SQL is seen within the notification delay', async () => {
      const owner = await signedIn(t.app)
      const file = await uploadFile(t.app, owner.headers, { name: 'sql.stl' })
      await warmAndProveCached(owner, ROOT, file._id)
      // As every writer does, the version moves with the change (view-cache.ts).
      await admin.query(
        `update ${schema}.files set name = 'renamed.stl', version = version + 1 where id = $1`,
        [file._id],
      )
      await seenWithin(apps, owner.headers, ROOT, (files) => files[0]?.name === 'renamed.stl')
    })

    test('a writer waits for a process on a slow link before it answers', async () => {
      // Its notifications arrive SLOW_MS late: without the writer's wait it would answer stale.
      const link = await slowLink(t.config.databaseUrl ?? '', SLOW_MS)
      const db3 = await openDatabase({ databaseUrl: link.url, dataDir: t.config.dataDir, pgSchema: schema })
      const far = await buildApp(t.config, { db: db3, keys: await testKeys(), conversions: false })
      try {
        await far.ready()
        await feedsUp(admin, schema, 3)
        const owner = await signedIn(t.app)
        const file = await uploadFile(t.app, owner.headers, { name: 'far.stl' })
        const before = await listed(far, owner.headers, ROOT)
        assert.deepEqual(await listed(far, owner.headers, ROOT), before)
        const started = Date.now()
        const star = await t.app.inject({
          method: 'PUT',
          url: `/file/${file._id}/favourite`,
          headers: owner.headers,
        })
        assert.equal(star.statusCode, 200, star.body)
        assert.ok(Date.now() - started >= SLOW_MS, 'the writer waited for the far feed')
        assert.deepEqual((await listed(far, owner.headers, ROOT))[0]?.favoritedBy, [owner.account.email])
      } finally {
        await far.close()
        await db3.close()
        await link.close()
      }
    })

    test('LISTEN connection killed: rows are read meanwhile, then kept again', async () => {
      const owner = await signedIn(t.app)
      const file = await uploadFile(t.app, owner.headers, { name: 'k.stl' })
      await warmAndProveCached(owner, ROOT, file._id)
      const killed = await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1',
        [`tessera-listen:${schema}`],
      )
      assert.equal(killed.rowCount, 2)
      // No notification reaches anyone now: a change that fires no trigger must still be seen.
      await silently(
        admin,
        schema,
        `update files set name = 'quiet.stl', version = version + 1 where id = $1`,
        [file._id],
      )
      await seenWithin(apps, owner.headers, ROOT, (files) => files[0]?.name === 'quiet.stl')

      await feedsUp(admin, schema, 2)
      await warmAndProveCached(owner, ROOT, file._id)
      const metrics = await t.app.inject({ method: 'GET', url: '/metrics' })
      const hits = /tessera_listing_cache_hits_total (\d+)/.exec(metrics.body)?.[1]
      const resets = /tessera_listing_cache_resets_total (\d+)/.exec(metrics.body)?.[1]
      assert.ok(Number(hits) > 0, metrics.body.slice(0, 200))
      assert.ok(Number(resets) >= 2, 'dropped when the connection went and when it came back')
    })
  })
}

/** Every app shows `ok` on a request sent within WITHIN_MS of the call. */
async function seenWithin(
  apps: FastifyInstance[],
  headers: Headers,
  url: string,
  ok: (files: Listed[]) => boolean,
): Promise<void> {
  for (const app of apps) {
    const start = Date.now()
    for (;;) {
      const sentAt = Date.now()
      if (ok(await listed(app, headers, url))) break
      if (sentAt - start > WITHIN_MS) assert.fail(`not seen after ${sentAt - start} ms`)
      await sleep(2)
    }
  }
}

/** An SQL change with triggers off: no NOTIFY goes out, so only a read of the rows can see it. */
async function silently(admin: pg.Client, schema: string, text: string, values: unknown[]): Promise<void> {
  await admin.query('begin')
  try {
    await admin.query('set local session_replication_role = replica')
    await admin.query(`set local search_path = ${schema}`)
    await admin.query(text, values)
    await admin.query('commit')
  } catch (error) {
    await admin.query('rollback')
    throw error
  }
}

/** Waits (up to 10 s) until `count` LISTEN connections of the schema have their feed registered. */
async function feedsUp(admin: pg.Client, schema: string, count: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const { rows } = await admin.query<{ n: string }>(
      `select count(distinct l.pid) as n from ${schema}.auth_listeners l join pg_stat_activity a
         on a.pid = l.pid and a.backend_start = l.backend_start where a.application_name = $1`,
      [`tessera-listen:${schema}`],
    )
    if (Number(rows[0]?.n) >= count) return
    await sleep(20)
  }
  assert.fail('row-change feeds did not come up')
}

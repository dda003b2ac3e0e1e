// Idempotency-Key on every create route (docs/api.md, "Idempotent requests"): a repeat answers the
// first answer (one record, one event), another request under the key is 422, concurrent requests
// with one key make one record, also across two app instances on one database. Every dialect.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import Fastify, { type FastifyInstance, type FastifyRequest, type LightMyRequestResponse } from 'fastify'
import { buildApp } from '../../src/app/app.ts'
import { openDatabase } from '../../src/platform/db/index.ts'
import {
  completeIdempotencyKey,
  pruneIdempotencyKeys,
  RESERVATION_TAKEOVER_MS,
  releaseIdempotencyKey,
  reserveIdempotencyKey,
} from '../../src/platform/idempotency.ts'
import { idempotencyStore, idempotentRoutes } from '../../src/platform/idempotent-routes.ts'
import { login, newAccount, problemOf, signedIn } from '../support/api.ts'
import { setCommitTrap, TRAPPED_KEY_PREFIX } from '../support/commit-trap.ts'
import { insertFileRow, type Team, team } from '../support/file-rows.ts'
import { postForm } from '../support/files.ts'
import { dialects, startApp, type TestApp, testConfig, testKeys } from '../support/harness.ts'

const SECRET = 'k7Qx-9vR2mWp4ZtL8bNc'

interface CreateRoute {
  name: string
  /** Sends the create with `key`; `variant` changes the body. */
  send(app: FastifyInstance, m: Team, key: string, variant?: number): Promise<LightMyRequestResponse>
  /** Records (and events) the creates made so far, as one comparable count. */
  count(app: FastifyInstance, m: Team): Promise<number>
  /** What one create adds to `count`. */
  unit: number
}

const json = (
  app: FastifyInstance,
  method: 'POST' | 'PUT',
  url: string,
  headers: Record<string, string>,
  payload?: unknown,
) =>
  app.inject({
    method,
    url,
    headers: { ...headers, 'content-type': 'application/json' },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  })

async function rows(app: FastifyInstance, table: 'annotations' | 'configurations' | 'webhooks') {
  const row = await app.ctx.db.kysely
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

async function events(app: FastifyInstance, name: string): Promise<number> {
  const row = await app.ctx.db.kysely
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('event', '=', name)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

const ROUTES: CreateRoute[] = [
  {
    name: 'POST /annotation/create/',
    unit: 1001,
    send: (app, m, key, variant = 0) =>
      json(
        app,
        'POST',
        '/annotation/create/',
        { ...m.editor.headers, 'idempotency-key': key },
        {
          file: m.fileId,
          name: `note ${variant}`,
        },
      ),
    count: async (app) => (await rows(app, 'annotations')) * 1000 + (await events(app, 'annotation_created')),
  },
  {
    name: 'POST /file/configuration/',
    unit: 1001,
    send: (app, m, key, variant = 0) =>
      json(
        app,
        'POST',
        '/file/configuration/',
        { ...m.editor.headers, 'idempotency-key': key },
        {
          file: m.fileId,
          name: `view ${variant}`,
        },
      ),
    count: async (app) =>
      (await rows(app, 'configurations')) * 1000 + (await events(app, 'configuration_created')),
  },
  {
    name: 'PUT /webhook/',
    unit: 1,
    send: (app, m, key, variant = 0) =>
      json(
        app,
        'PUT',
        '/webhook/',
        { authorization: `Bearer ${m.owner.authToken}`, 'idempotency-key': key },
        {
          event: 'file_uploaded',
          url: `http://127.0.0.1:9/hook${variant}`,
          secretToken: SECRET,
        },
      ),
    count: (app) => rows(app, 'webhooks'),
  },
  {
    name: 'POST /file/:id/share',
    unit: 1,
    send: (app, m, key, variant = 0) =>
      json(
        app,
        'POST',
        `/file/${m.fileId}/share`,
        { ...m.owner.headers, 'idempotency-key': key },
        {
          email: m.stranger.account.email,
          role: variant === 0 ? 'viewer' : 'editor',
        },
      ),
    count: async (app, m) => {
      const shares = await app.ctx.db.kysely
        .selectFrom('file_shares')
        .select('role')
        .where('file_id', '=', m.fileId)
        .where('account_id', '=', m.stranger.account.id)
        .execute()
      return shares.length
    },
  },
  {
    name: 'POST /file/upload/',
    unit: 1001,
    send: (app, m, key, variant = 0) =>
      postForm(app, { ...m.owner.headers, 'idempotency-key': key }, [
        { name: 'parent', value: '/idem' },
        { name: 'file', filename: 'part.stl', data: Buffer.from(`solid part ${variant}\n`) },
      ]),
    count: async (app) => {
      const revisions = await app.ctx.db.kysely
        .selectFrom('files')
        .select(['version'])
        .where('parent', '=', '/idem')
        .execute()
      const versions = revisions.reduce((sum, row) => sum + Number(row.version) + 1, 0)
      return versions * 1000 + (await events(app, 'file_uploaded'))
    },
  },
]

for (const dialect of dialects()) {
  describe(`Idempotency-Key on ${dialect.name}`, () => {
    let t: TestApp
    before(async () => {
      t = await startApp(dialect, { licenses: 1000 })
    })
    after(async () => t.close())

    for (const route of ROUTES) {
      test(`${route.name}: a repeat answers the first answer, once; another body is 422`, async () => {
        const m = await team(t.app)
        const key = randomUUID()
        const before = await route.count(t.app, m)
        const first = await route.send(t.app, m, key)
        assert.equal(first.statusCode, 200, first.body)
        assert.equal(first.headers['idempotent-replayed'], undefined)
        const made = await route.count(t.app, m)
        assert.equal(made - before, route.unit, 'the first request creates')
        const again = await route.send(t.app, m, key)
        assert.equal(again.statusCode, 200, again.body)
        assert.equal(again.headers['idempotent-replayed'], 'true')
        assert.deepEqual(again.json(), first.json())
        assert.equal(await route.count(t.app, m), made, 'no second record, no second event')
        const other = await route.send(t.app, m, key, 1)
        assert.equal(other.statusCode, 422, other.body)
        assert.equal(problemOf(other).code, 'IDEMPOTENCY_KEY_REUSED')
        assert.equal(await route.count(t.app, m), made)
      })

      test(`${route.name}: concurrent requests with one key make one record`, async () => {
        const m = await team(t.app)
        const key = randomUUID()
        const before = await route.count(t.app, m)
        const answers = await Promise.all(Array.from({ length: 6 }, () => route.send(t.app, m, key)))
        const statuses = answers.map((res) => res.statusCode)
        assert.ok(
          statuses.every((s) => s === 200 || s === 409),
          statuses.join(),
        )
        for (const res of answers.filter((r) => r.statusCode === 409)) {
          assert.equal(problemOf(res).code, 'IDEMPOTENCY_KEY_IN_USE')
          assert.equal(res.headers['retry-after'], '1')
        }
        const afterAll = await route.send(t.app, m, key)
        assert.equal(afterAll.headers['idempotent-replayed'], 'true')
        const created = answers.filter((r) => r.statusCode === 200 && !r.headers['idempotent-replayed'])
        assert.equal(created.length, 1, statuses.join())
        assert.deepEqual(afterAll.json(), created[0]?.json())
        assert.equal((await route.count(t.app, m)) - before, route.unit, 'one record, one event')
      })
    }

    test('POST /account/session: a repeat answers the same session, no second one', async () => {
      const account = await newAccount(t.app)
      const authToken = await login(t.app, account.username)
      const key = randomUUID()
      const headers = { authorization: `Bearer ${authToken}`, 'idempotency-key': key }
      const first = await json(t.app, 'POST', '/account/session', headers)
      assert.equal(first.statusCode, 200, first.body)
      const again = await json(t.app, 'POST', '/account/session', headers)
      assert.equal(again.headers['idempotent-replayed'], 'true')
      assert.equal(again.json().jwt, first.json().jwt)
      const sessions = await t.app.ctx.db.kysely
        .selectFrom('sessions')
        .select('id')
        .where('account_id', '=', account.id)
        .execute()
      assert.equal(sessions.length, 1)
    })

    test('the key is scoped to the account; malformed keys are 400', async () => {
      const m = await team(t.app)
      const key = randomUUID()
      const mine = await json(
        t.app,
        'POST',
        '/annotation/create/',
        { ...m.owner.headers, 'idempotency-key': key },
        {
          file: m.fileId,
          name: 'mine',
        },
      )
      const theirs = await json(
        t.app,
        'POST',
        '/annotation/create/',
        { ...m.editor.headers, 'idempotency-key': key },
        {
          file: m.fileId,
          name: 'theirs',
        },
      )
      assert.equal(mine.statusCode, 200)
      assert.equal(theirs.statusCode, 200, theirs.body)
      assert.notEqual(theirs.json().annotation._id, mine.json().annotation._id)
      for (const bad of ['x'.repeat(256), 'caf\u00e9', ' padded', '']) {
        const res = await json(
          t.app,
          'POST',
          '/annotation/create/',
          { ...m.owner.headers, 'idempotency-key': bad },
          {
            file: m.fileId,
            name: 'bad key',
          },
        )
        assert.equal(res.statusCode, 400, `${JSON.stringify(bad)}: ${res.body}`)
        assert.equal(problemOf(res).code, 'INVALID_IDEMPOTENCY_KEY')
      }
    })

    test('a 4xx answer of the first request is stored and replayed', async () => {
      const m = await team(t.app)
      const key = randomUUID()
      const missing = '0123456789abcdef01234567'
      const send = () =>
        json(
          t.app,
          'POST',
          '/annotation/create/',
          { ...m.editor.headers, 'idempotency-key': key },
          {
            file: missing,
            name: 'x',
          },
        )
      const first = await send()
      assert.equal(first.statusCode, 404)
      const again = await send()
      assert.equal(again.statusCode, 404)
      assert.equal(again.headers['idempotent-replayed'], 'true')
      assert.match(String(again.headers['content-type']), /^application\/problem\+json/)
    })

    test('the store: a stale reservation is taken over, a released key is free, the oldest are evicted', async () => {
      const db = t.app.ctx.db.kysely
      const limits = { ttlMs: 60_000_000, maxKeysPerAccount: 2 }
      const accountId = `acct${Math.random().toString(36).slice(2)}`
      const at = 1_000_000
      const input = (key: string) => ({ accountId, key, requestHash: 'h' })
      assert.equal((await reserveIdempotencyKey(db, limits, input('a'), at)).kind, 'reserved')
      assert.equal((await reserveIdempotencyKey(db, limits, input('a'), at + 1000)).kind, 'in-use')
      assert.equal(
        (await reserveIdempotencyKey(db, limits, { ...input('a'), requestHash: 'other' }, at + 1000)).kind,
        'reused',
      )
      // Its process died: after the bound, one request takes the key over (and only one).
      const later = at + RESERVATION_TAKEOVER_MS + 1
      assert.equal((await reserveIdempotencyKey(db, limits, input('a'), later)).kind, 'reserved')
      assert.equal((await reserveIdempotencyKey(db, limits, input('a'), later)).kind, 'in-use')
      // A 5xx releases the key: the retry runs.
      await releaseIdempotencyKey(db, { accountId, key: 'a' })
      assert.equal((await reserveIdempotencyKey(db, limits, input('a'), later)).kind, 'reserved')
      await completeIdempotencyKey(db, { accountId, key: 'a', status: 200, body: '{"n":1}' })
      assert.deepEqual(await reserveIdempotencyKey(db, limits, input('a'), later), {
        kind: 'replay',
        status: 200,
        body: '{"n":1}',
      })
      // Past two answered keys, the oldest goes.
      for (const [i, key] of ['b', 'c'].entries()) {
        await reserveIdempotencyKey(db, limits, input(key), later + 1 + i)
        await completeIdempotencyKey(db, { accountId, key, status: 200, body: '{}' })
      }
      await reserveIdempotencyKey(db, limits, input('d'), later + 10)
      const kept = await db
        .selectFrom('idempotency_keys')
        .select('key')
        .where('account_id', '=', accountId)
        .orderBy('key')
        .execute()
      assert.deepEqual(
        kept.map((row) => row.key),
        ['b', 'c', 'd'],
      )
    })

    test('a success not stored in its transaction frees its key and is logged', async () => {
      // A route marked idempotent whose handler never calls answerInCommit (a bug): its answer,
      // stored only after the commit, could be lost to a crash, so the key is not kept.
      const errors: unknown[] = []
      const store = {
        ...idempotencyStore(t.app.ctx),
        log: { error: (object: unknown) => errors.push(object) },
      }
      const bare = Fastify()
      bare.decorateRequest('idempotencyKey', null)
      bare.decorateRequest('idempotencyKeyStored', false)
      bare.decorateRequest('auth', null as never)
      bare.addHook('onRequest', async (request) => {
        request.auth = { accountId: 'acct-forgetful' } as FastifyRequest['auth']
      })
      bare.addHook('onRoute', idempotentRoutes(store))
      bare.post('/forgetful', { config: { idempotent: 'body' } }, async () => ({ success: true }))
      try {
        const key = randomUUID()
        const res = await json(bare, 'POST', '/forgetful', { 'idempotency-key': key }, {})
        assert.equal(res.statusCode, 200, res.body)
        assert.equal(await keyRow(t.app, key), undefined)
        assert.equal(errors.length, 1)
      } finally {
        await bare.close()
      }
    })

    test('keys expire after the TTL and are pruned in batches', async () => {
      const m = await team(t.app)
      const key = randomUUID()
      await json(
        t.app,
        'POST',
        '/annotation/create/',
        { ...m.editor.headers, 'idempotency-key': key },
        {
          file: m.fileId,
          name: 'old',
        },
      )
      const later = Date.now() + t.config.idempotencyTtlMs + 1
      assert.ok((await pruneIdempotencyKeys(t.app.ctx.db.kysely, later)) >= 1)
      const reused = await json(
        t.app,
        'POST',
        '/annotation/create/',
        { ...m.editor.headers, 'idempotency-key': key },
        {
          file: m.fileId,
          name: 'new',
        },
      )
      assert.equal(reused.statusCode, 200, reused.body)
      assert.equal(reused.headers['idempotent-replayed'], undefined)
    })
  })
}

/** POST /account/session, as a CreateRoute: the count is the owner's sessions. */
const SESSION_ROUTE: CreateRoute = {
  name: 'POST /account/session',
  unit: 1,
  send: (app, m, key) =>
    json(app, 'POST', '/account/session', {
      authorization: `Bearer ${m.owner.authToken}`,
      'idempotency-key': key,
    }),
  count: async (app, m) => {
    const sessions = await app.ctx.db.kysely
      .selectFrom('sessions')
      .select('id')
      .where('account_id', '=', m.owner.account.id)
      .execute()
    return sessions.length
  },
}

interface KeyRow {
  status: number | null
  body: string | null
}

async function keyRow(app: FastifyInstance, key: string): Promise<KeyRow | undefined> {
  const row = await app.ctx.db.kysely
    .selectFrom('idempotency_keys')
    .select(['status', 'body'])
    .where('key', '=', key)
    .executeTakeFirst()
  return row && { status: row.status === null ? null : Number(row.status), body: row.body }
}

// Every create stores its answer in the transaction of its record and event (answerInCommit).
for (const dialect of dialects()) {
  describe(`an answer commits with its create, on ${dialect.name}`, () => {
    let app: FastifyInstance
    let drop: () => Promise<void>
    // What the key's row held when each answer was about to be sent, with that answer.
    const seenBeforeSend = new Map<string, { row: KeyRow | undefined; payload: unknown }>()
    before(async () => {
      const opened = await dialect.open()
      drop = opened.drop
      const config = testConfig(opened.dataDir, { databaseUrl: opened.databaseUrl, licenses: 1000 })
      app = await buildApp(config, {
        db: opened.db,
        keys: await testKeys(),
        workers: false,
        conversions: false,
      })
      // Root onSend hooks run before the route's own, which would store an answer after the commit.
      app.addHook('onSend', async (request, _reply, payload) => {
        const key = request.headers['idempotency-key']
        if (typeof key === 'string') seenBeforeSend.set(key, { row: await keyRow(app, key), payload })
        return payload
      })
      await app.ready()
      await setCommitTrap(opened.db)
    })
    after(async () => {
      await app.close()
      await drop()
    })

    for (const route of [...ROUTES, SESSION_ROUTE]) {
      test(`${route.name}: the answer is stored, as sent, before it is sent`, async () => {
        const m = await team(app)
        const key = randomUUID()
        const res = await route.send(app, m, key)
        assert.equal(res.statusCode, 200, res.body)
        // A reader that sees the record (the answer is sent after its commit) sees the answer.
        assert.deepEqual(seenBeforeSend.get(key), { row: { status: 200, body: res.body }, payload: res.body })
      })

      test(`${route.name}: a commit that fails after the answer was written keeps nothing`, async () => {
        const m = await team(app)
        const key = `${TRAPPED_KEY_PREFIX}${randomUUID()}`
        const before = await route.count(app, m)
        const res = await route.send(app, m, key)
        assert.equal(res.statusCode, 500, res.body)
        assert.equal(await route.count(app, m), before, 'no record, no event')
        // The reservation is freed by the 5xx: a retry runs the create again, once.
        assert.equal(await keyRow(app, key), undefined, 'no stored answer, no reservation left')
      })
    }
  })
}

const postgres = dialects().find((d) => d.name === 'postgres')
describe('Idempotency-Key across two app instances on one PostgreSQL schema', { skip: !postgres }, () => {
  test('concurrent requests with one key on two instances make one annotation', async () => {
    if (!postgres) return
    const opened = await postgres.open()
    const config = testConfig(opened.dataDir, { databaseUrl: opened.databaseUrl, licenses: 100 })
    const keys = await testKeys()
    const one = await buildApp(config, { db: opened.db, keys, workers: false })
    const db2 = await openDatabase({ ...opened, pgSchema: opened.pgSchema })
    const two = await buildApp(config, { db: db2, keys, workers: false })
    try {
      await one.ready()
      await two.ready()
      const owner = await signedIn(one, 'owner')
      const fileId = await insertFileRow(one, owner.account.id)
      const key = randomUUID()
      const send = (app: FastifyInstance) =>
        json(
          app,
          'POST',
          '/annotation/create/',
          { ...owner.headers, 'idempotency-key': key },
          {
            file: fileId,
            name: 'twice',
          },
        )
      const answers = await Promise.all([send(one), send(two), send(one), send(two)])
      assert.ok(answers.every((res) => res.statusCode === 200 || res.statusCode === 409))
      assert.equal(await rows(one, 'annotations'), 1)
      assert.equal(await events(one, 'annotation_created'), 1)
    } finally {
      await two.close()
      await db2.close()
      await one.close()
      await opened.drop()
    }
  })
})

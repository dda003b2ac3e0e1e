// The live stream's reads (stream/sqlite/store.ts, stream/postgres/store.ts), each beside a
// reference, on every dialect: a scan walked in pages, a catch-up range and a resume position equal
// plain ordered selects of `event_stream`; the account and session checks match the rows; and on
// PostgreSQL a scan never passes a row that an older, still running transaction may yet commit.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { emitEvent } from '../../src/events/index.ts'
import { streamDialectOf } from '../../src/stream/open.ts'
import { isAfter, type Position, type StreamRow, type StreamStore } from '../../src/stream/store.ts'
import { type Team, team } from '../support/file-rows.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { emit } from '../support/receiver.ts'

const START: Position = { tx: 0, seq: 0 }
const samePosition = (a: Position, b: Position) => a.tx === b.tx && a.seq === b.seq

for (const dialect of dialects()) {
  describe(`live stream reads on ${dialect.name}`, () => {
    let t: TestApp
    let m: Team
    let store: StreamStore
    let everyone: string[]
    before(async () => {
      t = await startApp(dialect, { licenses: 100 }, { workers: false })
      m = await team(t.app)
      store = streamDialectOf(t.db).store
      everyone = [m.owner, m.editor, m.viewer, m.stranger].map((member) => member.account.id)
      await emitMix()
    })
    after(() => t.close())

    /** Events for varying readers, single and several to a transaction (several seqs per tx on PostgreSQL). */
    async function emitMix(): Promise<void> {
      const readerSets = [[], [m.viewer.account.id], [m.editor.account.id, m.viewer.account.id]]
      for (let i = 0; i < 12; i++) {
        const input = {
          event: 'attribute_updated' as const,
          fileId: m.fileId,
          fileOwnerId: m.owner.account.id,
          readerAccountIds: readerSets[i % 3],
          data: { n: i },
        }
        if (i % 4 !== 0) await emit(t, input)
        else {
          await t.db.kysely.transaction().execute(async (tx) => {
            for (let k = 0; k < 3; k++) await emitEvent(t.app.ctx, tx, { ...input, data: { n: i, k } })
          })
        }
      }
    }

    /** The reference: every row of `accounts`, by a plain ordered select. */
    async function reference(accounts: string[]): Promise<StreamRow[]> {
      const rows = await t.db.kysely
        .selectFrom('event_stream as s')
        .innerJoin('events as e', 'e.id', 's.event_id')
        .select([
          's.tx',
          's.seq',
          's.account_id',
          'e.id',
          'e.event',
          'e.file_id',
          'e.data',
          'e.run_timestamp',
        ])
        .where('s.account_id', 'in', accounts)
        .orderBy('s.tx')
        .orderBy('s.seq')
        .execute()
      return rows.map((r) => ({
        ...r,
        tx: Number(r.tx),
        seq: Number(r.seq),
        run_timestamp: Number(r.run_timestamp),
      }))
    }

    /**
     * A scan once no transaction of the server holds it back. Transaction ids are the cluster's, so a
     * transaction of another database on the same server (a test file running beside this one) holds
     * PostgreSQL reads back too, exactly as it would hold a hub's: the hub looks again, and so does this.
     */
    async function settledScan(from: Position, accounts: string[], limit: number) {
      let scan = await store.scan(from, accounts, limit)
      for (const until = Date.now() + 30_000; scan.held && Date.now() < until; ) {
        await sleep(50)
        scan = await store.scan(from, accounts, limit)
      }
      return scan
    }

    test('a scan walked in pages equals the plain ordered select, page by page', async () => {
      for (const accounts of [
        everyone,
        [m.viewer.account.id],
        [m.editor.account.id, m.stranger.account.id],
      ]) {
        const all = await reference(accounts)
        assert.ok(accounts.includes(m.stranger.account.id) || all.length > 0)
        let from = START
        const walked: StreamRow[] = []
        for (let pages = 0; pages < 100; pages++) {
          const page = await settledScan(from, accounts, 5)
          assert.deepEqual(page.rows, all.filter((row) => isAfter(row, from)).slice(0, 5))
          assert.equal(page.held, false)
          assert.ok(!isAfter(from, page.next), 'the position never goes back')
          walked.push(...page.rows)
          if (page.rows.length === 0) break
          from = page.next
        }
        assert.deepEqual(walked, all)
        const last = all.at(-1)
        if (last) assert.ok(isAfter(from, last) || samePosition(from, last))
      }
    })

    test('no committed row lies beyond the head, and a scan from it finds none', async () => {
      // Once no other transaction of the server holds it back (settledScan says why it may).
      const rows = await reference(everyone)
      let head = await store.head()
      for (
        const until = Date.now() + 30_000;
        rows.some((row) => isAfter(row, head)) && Date.now() < until;
      ) {
        await sleep(50)
        head = await store.head()
      }
      for (const row of rows) assert.ok(!isAfter(row, head), 'each row at or before the head')
      const scan = await store.scan(head, everyone, 500)
      assert.deepEqual(scan.rows, [])
      assert.ok(samePosition(scan.next, head) || isAfter(scan.next, head))
    })

    test("a catch-up equals the reader's rows in (after, upTo] of the plain select", async () => {
      const viewer = m.viewer.account.id
      const mine = await reference([viewer])
      const cuts = [START, ...mine.filter((_, i) => i % 3 === 1)]
      for (const afterPos of cuts) {
        for (const upTo of [...mine.filter((row) => isAfter(row, afterPos)), await store.head()]) {
          for (const limit of [1, 4, 500]) {
            const expected = mine
              .filter((row) => isAfter(row, afterPos) && !isAfter(row, upTo))
              .slice(0, limit)
            assert.deepEqual(await store.catchUp(viewer, afterPos, upTo, limit), expected)
          }
        }
      }
    })

    test("a resume position is the reader's own row's, and unknown otherwise", async () => {
      const rows = await reference(everyone)
      for (const row of rows) {
        assert.deepEqual(await store.positionOf(row.id, row.account_id), { tx: row.tx, seq: row.seq })
      }
      const ownerOnly = rows.find(
        (row) => !rows.some((r) => r.id === row.id && r.account_id === m.viewer.account.id),
      )
      assert.ok(ownerOnly)
      assert.equal(await store.positionOf(ownerOnly.id, m.viewer.account.id), null)
      assert.equal(await store.positionOf('0'.repeat(24), m.owner.account.id), null)
    })

    test('refusals and ended sessions are those the rows say', async () => {
      const [disabled, revoked] = [m.stranger.account.id, m.editor.account.id]
      await t.db.kysely.updateTable('accounts').set({ disabled: 1 }).where('id', '=', disabled).execute()
      await t.db.kysely
        .updateTable('accounts')
        .set({ tokens_valid_after: 1234 })
        .where('id', '=', revoked)
        .execute()
      const refusals = await store.refusalsAmong(everyone)
      assert.deepEqual(
        refusals.sort((a, b) => a.id.localeCompare(b.id)),
        [
          { id: disabled, disabled: true, tokensValidAfter: 0 },
          { id: revoked, disabled: false, tokensValidAfter: 1234 },
        ].sort((a, b) => a.id.localeCompare(b.id)),
      )
      assert.deepEqual(await store.refusalsAmong([m.owner.account.id]), [])

      const now = Date.now()
      const base = { account_id: m.owner.account.id, created_at: now, ends_at: null, superseded_at: null }
      await t.db.kysely
        .insertInto('sessions')
        .values([
          { ...base, id: 'st-live', expires_at: now + 60_000, ends_at: now + 30_000 },
          { ...base, id: 'st-superseded', expires_at: now + 60_000, superseded_at: now },
          { ...base, id: 'st-ended', expires_at: now + 60_000, ends_at: now },
          { ...base, id: 'st-expired', expires_at: now },
        ])
        .execute()
      const ids = ['st-live', 'st-superseded', 'st-ended', 'st-expired', 'st-gone']
      const ended = await store.endedSessionsAmong(ids, now)
      assert.deepEqual(
        Object.fromEntries([...ended].sort()),
        Object.fromEntries(
          [
            ['st-superseded', 'SESSION_SUPERSEDED'],
            ['st-ended', 'SESSION_DELETED'],
            ['st-expired', 'SESSION_EXPIRED'],
            ['st-gone', 'SESSION_DELETED'],
          ].sort(),
        ),
      )
    })

    if (dialect.name === 'postgres') {
      test('PostgreSQL: a row of an older running transaction holds later commits back, then comes first', async () => {
        const owner = m.owner.account.id
        const from = await store.head()
        const input = { event: 'attribute_updated' as const, fileId: m.fileId, fileOwnerId: owner, data: {} }
        let release = () => {}
        const gate = new Promise<void>((resolve) => {
          release = resolve
        })
        let emittedOlder = () => {}
        const olderEmitted = new Promise<void>((resolve) => {
          emittedOlder = resolve
        })
        const older = t.db.kysely.transaction().execute(async (tx) => {
          const emitted = await emitEvent(t.app.ctx, tx, input)
          emittedOlder()
          await gate
          return emitted.eventId
        })
        await olderEmitted
        const newer = (await emit(t, input)).eventId
        const held = await store.scan(from, [owner], 500)
        assert.deepEqual(held.rows, [], 'the newer commit waits for the older transaction')
        assert.equal(held.held, true)
        release()
        const olderId = await older
        const scan = await settledScan(held.next, [owner], 500)
        assert.deepEqual(
          scan.rows.map((row) => row.id),
          [olderId, newer],
        )
        assert.equal(scan.held, false)
        assert.deepEqual(
          scan.rows,
          (await reference([owner])).filter((row) => isAfter(row, from)),
        )
      })
    }
  })
}

// SQLite's own part of one emit, without any Tessera code: the emit's three inserts (event row,
// stream log row, a leased delivery, as events/sqlite/outbox-store.ts and delivery/sqlite/fan-out.ts
// write them for one subscriber) replayed
// with better-sqlite3 on a freshly migrated schema, each in a BEGIN IMMEDIATE ... COMMIT of its own,
// WAL mode, synchronous = NORMAL. Reports the time of BEGIN, the statements and COMMIT, and the WAL
// frames (pages) one commit writes. The WAL is never checkpointed during the replay (it only grows,
// as between two of the checkpointer's passes), so the frame count is exact.
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { migrate, openDatabase } from '../../packages/server/src/platform/db/index.ts'
import { newId } from '../../packages/server/src/platform/ids.ts'

export interface ReplayCost {
  beginUs: number
  statementsUs: number
  commitUs: number
  walFrames: number
}

const TEXTS = {
  account: `insert into accounts (id, email, username, password_hash, created_at, updated_at)
    values ('a1', 'a@example.com', 'a', 'x', ?, ?)`,
  webhook: `insert into webhooks (id, owner_id, event, url, secret, service_token, created_at, updated_at)
    values ('w1', 'a1', 'attribute_updated', 'http://127.0.0.1/', 's', 't', ?, ?)`,
  event: 'insert into events (id, event, file_id, data, run_timestamp, created_at) values (?, ?, ?, ?, ?, ?)',
  stream: `insert into event_stream (tx, event_id, account_id)
    select 0, ?, id from accounts where id in (select value from json_each(?)) and disabled = 0`,
  delivery: `insert into deliveries (id, uuid, event_id, webhook_id, owner_email, status, attempts,
    next_attempt_at, created_at, updated_at, is_test, leased_by, lease_expires_at)
    values (?, ?, ?, 'w1', 'a@example.com', 'delivering', 0, ?, ?, ?, 0, 'bench', ?)`,
}

async function migratedFile(dir: string): Promise<string> {
  const db = await openDatabase({ databaseUrl: undefined, dataDir: dir })
  await migrate(db)
  await db.close()
  return path.join(dir, 'tessera.db')
}

/** Replays `count` emits; answers the mean cost of one. */
export async function replayEmits(count: number): Promise<ReplayCost> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-bench-replay-'))
  try {
    const file = await migratedFile(dir)
    const database = new Database(file)
    database.pragma('journal_mode = WAL')
    database.pragma('synchronous = NORMAL')
    database.pragma('wal_autocheckpoint = 0')
    const result = replay(database, file, count)
    database.close()
    return result
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function replay(database: Database.Database, file: string, count: number): ReplayCost {
  const now = Date.now()
  database.prepare(TEXTS.account).run(now, now)
  database.prepare(TEXTS.webhook).run(now, now)
  const begin = database.prepare('begin immediate')
  const event = database.prepare(TEXTS.event)
  const stream = database.prepare(TEXTS.stream)
  const delivery = database.prepare(TEXTS.delivery)
  const commit = database.prepare('commit')
  const walBytes = () => statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0
  const frameBytes = 24 + Number(database.pragma('page_size', { simple: true }))
  const data = JSON.stringify({ nodeIdToAttributes: { 'node-1': { color: 'red' } }, t: 0 })
  const spent = { begin: 0n, statements: 0n, commit: 0n }
  const walBefore = walBytes()
  for (let i = 0; i < count; i++) {
    const t0 = process.hrtime.bigint()
    begin.run()
    const t1 = process.hrtime.bigint()
    const eventId = newId(now)
    event.run(eventId, 'attribute_updated', '0123456789abcdef01234567', data, now, now)
    stream.run(eventId, '["a1"]')
    delivery.run(newId(now), randomUUID(), eventId, now, now, now, now + 30_000)
    const t2 = process.hrtime.bigint()
    commit.run()
    const t3 = process.hrtime.bigint()
    spent.begin += t1 - t0
    spent.statements += t2 - t1
    spent.commit += t3 - t2
  }
  const us = (ns: bigint) => Number(ns) / 1000 / count
  return {
    beginUs: us(spent.begin),
    statementsUs: us(spent.statements),
    commitUs: us(spent.commit),
    walFrames: (walBytes() - walBefore) / frameBytes / count,
  }
}

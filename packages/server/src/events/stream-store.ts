// SQL of the live event stream's log (`event_stream`, migration 0014): the rows emitEvent adds, and
// the reads of the stream hub. A row's position is (tx, seq), compared as a pair:
// - SQLite: one writer at a time, so `seq` (assigned at insert) is commit order; tx is always 0.
//   `seq` is a plain INTEGER PRIMARY KEY (migration 0020), i.e. max(seq) + 1: the pruning of
//   retention.ts keeps the newest row, or a seq would be given out twice.
// - PostgreSQL: `seq` is assigned at insert, and transactions commit out of that order, so a
//   reader that remembered "seq 7" could later find a seq 6 committed after it. `tx` is the
//   emitting transaction's id, and a read only returns rows whose transaction is older than the
//   oldest transaction still running (its snapshot's xmin): those transactions have all ended, so no
//   row can appear later at a position below what the reader has passed. The price: an event waits
//   for every older write transaction to end (emitting ones are short), and when one is still
//   running the read reports `held` so the hub looks again shortly (an older transaction that emits
//   nothing sends no NOTIFY when it ends).
import { CompiledQuery } from 'kysely'
import type { Db } from '../platform/db/index.ts'
import { listParam } from '../platform/db/raw-sql.ts'

export interface Position {
  tx: number
  seq: number
}

/** One event as one reader sees it. */
export interface StreamRow {
  tx: number
  seq: number
  account_id: string
  /** The event's id: the stream's `id:` and Last-Event-ID. */
  id: string
  event: string
  file_id: string
  /** The envelope's `data`, as stored JSON text. */
  data: string
  run_timestamp: number
}

export interface Scan {
  rows: StreamRow[]
  /** Where the next scan starts. */
  next: Position
  /** PostgreSQL: committed rows exist beyond `next` that an older, running transaction holds back. */
  held: boolean
}

/** `a` comes after `b`. */
export const isAfter = (a: Position, b: Position): boolean => a.tx > b.tx || (a.tx === b.tx && a.seq > b.seq)
export const later = (a: Position, b: Position): Position => (isAfter(a, b) ? a : b)

const ROW_COLUMNS = 's.tx, s.seq, s.account_id, e.id, e.event, e.file_id, e.data, e.run_timestamp'
const ROW_SOURCE = 'event_stream s join events e on e.id = s.event_id'

const numbered = (text: string) => {
  let n = 0
  return text.replace(/\?/g, () => `$${++n}`)
}

async function query<R>(db: Db, sqliteText: string, pgText: string, params: unknown[]): Promise<R[]> {
  const text = db.dialect === 'postgres' ? pgText : sqliteText
  const result = await db.kysely.executeQuery<R>(CompiledQuery.raw(text, params))
  return result.rows
}

// ---- written by emitEvent --------------------------------------------------------------------

// The reader rule is emitEvent's: the readers it was given (owner, shares, the finer item rules of
// the caller), enabled accounts only, exactly as the webhook fan-out picks its subscribers.
export const SQLITE_STREAM_INSERT = `insert into event_stream (tx, event_id, account_id)
  select 0, ?, id from accounts where id in (select value from json_each(?)) and disabled = 0`
/** A CTE for the PostgreSQL emit statement: the rows, and whether any was written. */
export const PG_STREAM_CTE = `st as (
    insert into event_stream (tx, event_id, account_id)
    select pg_current_xact_id()::text::bigint, ?::text, id from accounts
    where id = any(?::text[]) and disabled = 0 returning 1
  )`
/** The NOTIFY that wakes every process's hub at commit; the payload (the transaction) makes one per transaction. */
export const streamNotify = (channel: string) =>
  `case when exists (select 1 from st) then
    (select 1 from pg_notify('${channel}', pg_current_xact_id()::text)) end as streamed`

// ---- read by the hub -------------------------------------------------------------------------

/** Where the stream stands now: a new reader starts here. */
export async function head(db: Db): Promise<Position> {
  if (db.dialect === 'postgres') {
    const [row] = await query<{ m: number }>(
      db,
      '',
      'select pg_snapshot_xmin(pg_current_snapshot())::text::bigint as m',
      [],
    )
    return { tx: Number(row?.m ?? 0), seq: 0 }
  }
  const [row] = await query<{ seq: number | null }>(db, 'select max(seq) as seq from event_stream', '', [])
  return { tx: 0, seq: Number(row?.seq ?? 0) }
}

const SQLITE_SCAN = `select t.top, r.* from (select max(seq) as top from event_stream) t left join (
    select ${ROW_COLUMNS} from ${ROW_SOURCE}
    where s.tx = 0 and s.seq > ? and s.account_id in (select value from json_each(?))
    order by s.seq limit ?
  ) r on 1 order by r.seq`
const PG_SCAN = `with snap as (select pg_snapshot_xmin(pg_current_snapshot())::text::bigint as m)
  select snap.m as top,
    exists (select 1 from event_stream p where p.tx >= snap.m and p.account_id = any($3::text[])) as held,
    r.*
  from snap left join lateral (
    select ${ROW_COLUMNS} from ${ROW_SOURCE}
    where (s.tx, s.seq) > ($1::bigint, $2::bigint) and s.tx < snap.m and s.account_id = any($3::text[])
    order by s.tx, s.seq limit $4
  ) r on true order by r.tx, r.seq`

type ScanRow = Partial<StreamRow> & { top: number | null; held?: boolean }

/** The readers' rows after `from`, at most `limit`, in position order: one query. */
export async function scan(db: Db, from: Position, accounts: string[], limit: number): Promise<Scan> {
  const params =
    db.dialect === 'postgres'
      ? [from.tx, from.seq, accounts, limit]
      : [from.seq, listParam('sqlite', accounts), limit]
  const result = await query<ScanRow>(db, SQLITE_SCAN, PG_SCAN, params)
  const first = result[0]
  const rows = result.filter((r) => r.id != null).map(toRow)
  const last = rows.at(-1)
  let next: Position
  if (last && rows.length >= limit) next = { tx: last.tx, seq: last.seq }
  else if (db.dialect === 'postgres') next = later(from, { tx: Number(first?.top ?? 0), seq: 0 })
  else next = later(from, { tx: 0, seq: Number(first?.top ?? 0) })
  return { rows, next, held: first?.held === true }
}

const toRow = (r: Partial<StreamRow>): StreamRow => ({
  tx: Number(r.tx),
  seq: Number(r.seq),
  account_id: String(r.account_id),
  id: String(r.id),
  event: String(r.event),
  file_id: String(r.file_id),
  data: String(r.data),
  run_timestamp: Number(r.run_timestamp),
})

// Ranges of the (account_id, tx, seq) index; on SQLite, where tx is always 0, spelt so it sees that.
const CATCH_UP = `select ${ROW_COLUMNS} from ${ROW_SOURCE}
  where s.account_id = ? and s.tx = 0 and s.seq > ? and s.seq <= ? order by s.seq limit ?`
const PG_CATCH_UP = numbered(`select ${ROW_COLUMNS} from ${ROW_SOURCE}
  where s.account_id = ? and (s.tx, s.seq) > (?, ?) and (s.tx, s.seq) <= (?, ?)
  order by s.tx, s.seq limit ?`)

/** One reader's rows in (after, upTo], at most `limit` (upTo is never past the hub's scans). */
export async function catchUp(
  db: Db,
  accountId: string,
  after: Position,
  upTo: Position,
  limit: number,
): Promise<StreamRow[]> {
  const params =
    db.dialect === 'postgres'
      ? [accountId, after.tx, after.seq, upTo.tx, upTo.seq, limit]
      : [accountId, after.seq, upTo.seq, limit]
  return (await query<StreamRow>(db, CATCH_UP, PG_CATCH_UP, params)).map(toRow)
}

const POSITION_OF = 'select tx, seq from event_stream where event_id = ? and account_id = ?'

/** Where the reader's event `eventId` stands; null when unknown to this reader. */
export async function positionOf(db: Db, eventId: string, accountId: string): Promise<Position | null> {
  const [row] = await query<Position>(db, POSITION_OF, numbered(POSITION_OF), [eventId, accountId])
  return row ? { tx: Number(row.tx), seq: Number(row.seq) } : null
}

const REFUSED_SQLITE =
  'select id, disabled, tokens_valid_after from accounts where id in (select value from json_each(?)) ' +
  'and (disabled = 1 or tokens_valid_after > 0)'
const REFUSED_PG =
  'select id, disabled, tokens_valid_after from accounts where id = any($1::text[]) ' +
  'and (disabled = 1 or tokens_valid_after > 0)'

/**
 * Of `accounts`, those that are disabled (every stream ends) or whose tokens were ever revoked, with
 * the time of the last revocation (streams opened with a token issued before it end).
 */
export async function refusalsAmong(
  db: Db,
  accounts: string[],
): Promise<Array<{ id: string; disabled: boolean; tokensValidAfter: number }>> {
  const rows = await query<{ id: string; disabled: number; tokens_valid_after: number | string }>(
    db,
    REFUSED_SQLITE,
    REFUSED_PG,
    [listParam(db.dialect, accounts)],
  )
  return rows.map((r) => ({
    id: r.id,
    disabled: Number(r.disabled) === 1,
    tokensValidAfter: Number(r.tokens_valid_after),
  }))
}

const SESSIONS_SQLITE =
  'select id, superseded_at, ends_at, expires_at from sessions where id in (select value from json_each(?))'
const SESSIONS_PG = 'select id, superseded_at, ends_at, expires_at from sessions where id = any($1::text[])'

/** Why a session no longer works: the code its requests are refused with. */
export type SessionEnd = 'SESSION_SUPERSEDED' | 'SESSION_DELETED' | 'SESSION_EXPIRED'

/**
 * Of the sessions `ids` (those streams were opened with), the ones that no longer work and why: a
 * newer session of the account took over, it was ended or is gone, or it expired.
 */
export async function endedSessionsAmong(
  db: Db,
  ids: string[],
  now: number,
): Promise<Map<string, SessionEnd>> {
  type Row = { id: string; superseded_at: unknown; ends_at: unknown; expires_at: unknown }
  const rows = await query<Row>(db, SESSIONS_SQLITE, SESSIONS_PG, [listParam(db.dialect, ids)])
  const found = new Map(rows.map((row) => [row.id, row]))
  const ended = new Map<string, SessionEnd>()
  for (const id of ids) {
    const row = found.get(id)
    if (!row) ended.set(id, 'SESSION_DELETED')
    else if (row.superseded_at !== null) ended.set(id, 'SESSION_SUPERSEDED')
    else if (row.ends_at !== null && Number(row.ends_at) <= now) ended.set(id, 'SESSION_DELETED')
    else if (Number(row.expires_at) <= now) ended.set(id, 'SESSION_EXPIRED')
  }
  return ended
}

// The reads of the live event stream's log (`event_stream`, migration 0014, written by emitEvent:
// events/stream-log.ts), as one interface with one implementation per database (sqlite/store.ts,
// postgres/store.ts), chosen when the hub is made (open.ts). A row's position is (tx, seq), compared
// as a pair; each implementation says what the pair means on its database and why commit order holds.
import { CompiledQuery } from 'kysely'
import type { Db } from '../platform/db/index.ts'

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

/** An account whose streams may have to end: disabled, or its tokens revoked at `tokensValidAfter`. */
export interface Refusal {
  id: string
  disabled: boolean
  tokensValidAfter: number
}

/** Why a session no longer works: the code its requests are refused with. */
export type SessionEnd = 'SESSION_SUPERSEDED' | 'SESSION_DELETED' | 'SESSION_EXPIRED'

/** What the hub reads, bound to one database. */
export interface StreamStore {
  /** Where the stream stands now: a new reader starts here. */
  head(): Promise<Position>
  /** The readers' rows after `from`, at most `limit`, in position order: one query. */
  scan(from: Position, accounts: string[], limit: number): Promise<Scan>
  /** One reader's rows in (after, upTo], at most `limit` (upTo is never past the hub's scans). */
  catchUp(accountId: string, after: Position, upTo: Position, limit: number): Promise<StreamRow[]>
  /** Where the reader's event `eventId` stands; null when unknown to this reader. */
  positionOf(eventId: string, accountId: string): Promise<Position | null>
  /**
   * Of `accounts`, those that are disabled (every stream ends) or whose tokens were ever revoked,
   * with the time of the last revocation (streams opened with a token issued before it end).
   */
  refusalsAmong(accounts: string[]): Promise<Refusal[]>
  /**
   * Of the sessions `ids` (those streams were opened with), the ones that no longer work and why: a
   * newer session of the account took over, it was ended or is gone, or it expired.
   */
  endedSessionsAmong(ids: string[], now: number): Promise<Map<string, SessionEnd>>
}

/** `a` comes after `b`. */
export const isAfter = (a: Position, b: Position): boolean => a.tx > b.tx || (a.tx === b.tx && a.seq > b.seq)
export const later = (a: Position, b: Position): Position => (isAfter(a, b) ? a : b)

// ---- shared by the implementations -------------------------------------------------------------

export const ROW_COLUMNS = 's.tx, s.seq, s.account_id, e.id, e.event, e.file_id, e.data, e.run_timestamp'
export const ROW_SOURCE = 'event_stream s join events e on e.id = s.event_id'

/** One plain-text statement (the hub's reads run at every wake-up: no query building). */
export async function query<R>(db: Db, text: string, params: unknown[]): Promise<R[]> {
  const result = await db.kysely.executeQuery<R>(CompiledQuery.raw(text, params))
  return result.rows
}

export const toRow = (r: Partial<StreamRow>): StreamRow => ({
  tx: Number(r.tx),
  seq: Number(r.seq),
  account_id: String(r.account_id),
  id: String(r.id),
  event: String(r.event),
  file_id: String(r.file_id),
  data: String(r.data),
  run_timestamp: Number(r.run_timestamp),
})

/** A scan's result rows: the reader rows (joined to the top of the log, which comes with each). */
export type ScanRow = Partial<StreamRow> & { top: number | null; held?: boolean }

/** The rows of a scan and where the next one starts: past the last row of a full batch, else `top`. */
export function scanned(result: ScanRow[], from: Position, top: Position, limit: number): Scan {
  const rows = result.filter((r) => r.id != null).map(toRow)
  const last = rows.at(-1)
  const next = last && rows.length >= limit ? { tx: last.tx, seq: last.seq } : later(from, top)
  return { rows, next, held: result[0]?.held === true }
}

export const toPosition = (row: Position | undefined): Position | null =>
  row ? { tx: Number(row.tx), seq: Number(row.seq) } : null

export const REFUSED_COLUMNS = 'select id, disabled, tokens_valid_after from accounts'
export const REFUSED_WHERE = 'and (disabled = 1 or tokens_valid_after > 0)'

export interface RefusalRow {
  id: string
  disabled: number
  tokens_valid_after: number | string
}

export function toRefusal(r: RefusalRow): Refusal {
  return { id: r.id, disabled: Number(r.disabled) === 1, tokensValidAfter: Number(r.tokens_valid_after) }
}

export const SESSION_COLUMNS = 'select id, superseded_at, ends_at, expires_at from sessions'

export interface SessionRow {
  id: string
  superseded_at: unknown
  ends_at: unknown
  expires_at: unknown
}

/** Of `ids`, why each ended one ended, given the session rows found. */
export function sessionEnds(ids: string[], rows: SessionRow[], now: number): Map<string, SessionEnd> {
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

// The stream's log on PostgreSQL. `seq` is assigned at insert, and transactions commit out of that
// order, so a reader that remembered "seq 7" could later find a seq 6 committed after it. `tx` is
// the emitting transaction's id, and a read only returns rows whose transaction is older than the
// oldest transaction still running (its snapshot's xmin): those transactions have all ended, so no
// row can appear later at a position below what the reader has passed. The price: an event waits
// for every older write transaction to end (emitting ones are short), and when one is still running
// the read reports `held` so the hub looks again shortly (an older transaction that emits nothing
// sends no NOTIFY when it ends). Lists go in as one text[] parameter.
import type { Db } from '../../platform/db/index.ts'
import {
  type Position,
  query,
  REFUSED_COLUMNS,
  REFUSED_WHERE,
  type Refusal,
  type RefusalRow,
  ROW_COLUMNS,
  ROW_SOURCE,
  type Scan,
  type ScanRow,
  SESSION_COLUMNS,
  type SessionEnd,
  type SessionRow,
  type StreamRow,
  type StreamStore,
  scanned,
  sessionEnds,
  toPosition,
  toRefusal,
  toRow,
} from '../store.ts'

const HEAD = 'select pg_snapshot_xmin(pg_current_snapshot())::text::bigint as m'
const SCAN = `with snap as (select pg_snapshot_xmin(pg_current_snapshot())::text::bigint as m)
  select snap.m as top,
    exists (select 1 from event_stream p where p.tx >= snap.m and p.account_id = any($3::text[])) as held,
    r.*
  from snap left join lateral (
    select ${ROW_COLUMNS} from ${ROW_SOURCE}
    where (s.tx, s.seq) > ($1::bigint, $2::bigint) and s.tx < snap.m and s.account_id = any($3::text[])
    order by s.tx, s.seq limit $4
  ) r on true order by r.tx, r.seq`
// A range of the (account_id, tx, seq) index.
const CATCH_UP = `select ${ROW_COLUMNS} from ${ROW_SOURCE}
  where s.account_id = $1 and (s.tx, s.seq) > ($2, $3) and (s.tx, s.seq) <= ($4, $5)
  order by s.tx, s.seq limit $6`
const POSITION_OF = 'select tx, seq from event_stream where event_id = $1 and account_id = $2'
const REFUSED = `${REFUSED_COLUMNS} where id = any($1::text[]) ${REFUSED_WHERE}`
const SESSIONS = `${SESSION_COLUMNS} where id = any($1::text[])`

export class PostgresStreamStore implements StreamStore {
  readonly #db: Db

  constructor(db: Db) {
    this.#db = db
  }

  async head(): Promise<Position> {
    const [row] = await query<{ m: number }>(this.#db, HEAD, [])
    return { tx: Number(row?.m ?? 0), seq: 0 }
  }

  async scan(from: Position, accounts: string[], limit: number): Promise<Scan> {
    const result = await query<ScanRow>(this.#db, SCAN, [from.tx, from.seq, accounts, limit])
    return scanned(result, from, { tx: Number(result[0]?.top ?? 0), seq: 0 }, limit)
  }

  async catchUp(accountId: string, after: Position, upTo: Position, limit: number): Promise<StreamRow[]> {
    const params = [accountId, after.tx, after.seq, upTo.tx, upTo.seq, limit]
    return (await query<StreamRow>(this.#db, CATCH_UP, params)).map(toRow)
  }

  async positionOf(eventId: string, accountId: string): Promise<Position | null> {
    return toPosition((await query<Position>(this.#db, POSITION_OF, [eventId, accountId]))[0])
  }

  async refusalsAmong(accounts: string[]): Promise<Refusal[]> {
    return (await query<RefusalRow>(this.#db, REFUSED, [accounts])).map(toRefusal)
  }

  async endedSessionsAmong(ids: string[], now: number): Promise<Map<string, SessionEnd>> {
    return sessionEnds(ids, await query<SessionRow>(this.#db, SESSIONS, [ids]), now)
  }
}

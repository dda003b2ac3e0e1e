// The stream's log on PostgreSQL. `seq` is assigned at insert, and transactions commit out of that
// order, so a reader that remembered "seq 7" could later find a seq 6 committed after it. `tx` is
// the emitting transaction's id, and a read only returns rows whose transaction is older than the
// oldest transaction still running (its snapshot's xmin): those transactions have all ended, so no
// row can appear later at a position below what the reader has passed. The price: an event waits
// for every older write transaction to end (emitting ones are short), and when one is still running
// the read reports `held` so the hub looks again shortly (an older transaction that emits nothing
// sends no NOTIFY when it ends). Lists go in as one text[] parameter.
import type { Db } from '../../platform/db/index.ts'
import * as common from '../store.ts'

const HEAD = 'select pg_snapshot_xmin(pg_current_snapshot())::text::bigint as m'
const SCAN = `with snap as (select pg_snapshot_xmin(pg_current_snapshot())::text::bigint as m)
  select snap.m as top,
    exists (select 1 from event_stream p where p.tx >= snap.m and p.account_id = any($3::text[])) as held,
    r.*
  from snap left join lateral (
    select ${common.ROW_COLUMNS} from ${common.ROW_SOURCE}
    where (s.tx, s.seq) > ($1::bigint, $2::bigint) and s.tx < snap.m and s.account_id = any($3::text[])
    order by s.tx, s.seq limit $4
  ) r on true order by r.tx, r.seq`
// A range of the (account_id, tx, seq) index.
const CATCH_UP = `select ${common.ROW_COLUMNS} from ${common.ROW_SOURCE}
  where s.account_id = $1 and (s.tx, s.seq) > ($2, $3) and (s.tx, s.seq) <= ($4, $5)
  order by s.tx, s.seq limit $6`
const POSITION_OF = 'select tx, seq from event_stream where event_id = $1 and account_id = $2'
const REFUSED = `${common.REFUSED_COLUMNS} where id = any($1::text[]) ${common.REFUSED_WHERE}`
const SESSIONS = `${common.SESSION_COLUMNS} where id = any($1::text[])`

export class PostgresStreamStore implements common.StreamStore {
  readonly #db: Db

  constructor(db: Db) {
    this.#db = db
  }

  async head(): Promise<common.Position> {
    const [row] = await common.query<{ m: number }>(this.#db, HEAD, [])
    return { tx: Number(row?.m ?? 0), seq: 0 }
  }

  async scan(from: common.Position, accounts: string[], limit: number): Promise<common.Scan> {
    const result = await common.query<common.ScanRow>(this.#db, SCAN, [from.tx, from.seq, accounts, limit])
    return common.scanned(result, from, { tx: Number(result[0]?.top ?? 0), seq: 0 }, limit)
  }

  async catchUp(
    accountId: string,
    after: common.Position,
    upTo: common.Position,
    limit: number,
  ): Promise<common.StreamRow[]> {
    const params = [accountId, after.tx, after.seq, upTo.tx, upTo.seq, limit]
    return (await common.query<common.StreamRow>(this.#db, CATCH_UP, params)).map(common.toRow)
  }

  async positionOf(eventId: string, accountId: string): Promise<common.Position | null> {
    return common.toPosition(
      (await common.query<common.Position>(this.#db, POSITION_OF, [eventId, accountId]))[0],
    )
  }

  async refusalsAmong(accounts: string[]): Promise<common.Refusal[]> {
    return (await common.query<common.RefusalRow>(this.#db, REFUSED, [accounts])).map(common.toRefusal)
  }

  async endedSessionsAmong(ids: string[], now: number): Promise<Map<string, common.SessionEnd>> {
    return common.sessionEnds(ids, await common.query<common.SessionRow>(this.#db, SESSIONS, [ids]), now)
  }
}

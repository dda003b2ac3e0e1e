// The stream's log on SQLite. One writer at a time, so `seq` (assigned at insert) is commit order;
// tx is always 0. `seq` is a plain INTEGER PRIMARY KEY (migration 0020), i.e. max(seq) + 1: the
// pruning of events/retention.ts keeps the newest row, or a seq would be given out twice. Lists go
// in as one JSON parameter (json_each).
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

const HEAD = 'select max(seq) as seq from event_stream'
const SCAN = `select t.top, r.* from (select max(seq) as top from event_stream) t left join (
    select ${ROW_COLUMNS} from ${ROW_SOURCE}
    where s.tx = 0 and s.seq > ? and s.account_id in (select value from json_each(?))
    order by s.seq limit ?
  ) r on 1 order by r.seq`
// A range of the (account_id, tx, seq) index, spelt so that SQLite sees tx is always 0.
const CATCH_UP = `select ${ROW_COLUMNS} from ${ROW_SOURCE}
  where s.account_id = ? and s.tx = 0 and s.seq > ? and s.seq <= ? order by s.seq limit ?`
const POSITION_OF = 'select tx, seq from event_stream where event_id = ? and account_id = ?'
const REFUSED = `${REFUSED_COLUMNS} where id in (select value from json_each(?)) ${REFUSED_WHERE}`
const SESSIONS = `${SESSION_COLUMNS} where id in (select value from json_each(?))`

export class SqliteStreamStore implements StreamStore {
  readonly #db: Db

  constructor(db: Db) {
    this.#db = db
  }

  async head(): Promise<Position> {
    const [row] = await query<{ seq: number | null }>(this.#db, HEAD, [])
    return { tx: 0, seq: Number(row?.seq ?? 0) }
  }

  async scan(from: Position, accounts: string[], limit: number): Promise<Scan> {
    const result = await query<ScanRow>(this.#db, SCAN, [from.seq, JSON.stringify(accounts), limit])
    return scanned(result, from, { tx: 0, seq: Number(result[0]?.top ?? 0) }, limit)
  }

  async catchUp(accountId: string, after: Position, upTo: Position, limit: number): Promise<StreamRow[]> {
    const rows = await query<StreamRow>(this.#db, CATCH_UP, [accountId, after.seq, upTo.seq, limit])
    return rows.map(toRow)
  }

  async positionOf(eventId: string, accountId: string): Promise<Position | null> {
    return toPosition((await query<Position>(this.#db, POSITION_OF, [eventId, accountId]))[0])
  }

  async refusalsAmong(accounts: string[]): Promise<Refusal[]> {
    return (await query<RefusalRow>(this.#db, REFUSED, [JSON.stringify(accounts)])).map(toRefusal)
  }

  async endedSessionsAmong(ids: string[], now: number): Promise<Map<string, SessionEnd>> {
    return sessionEnds(ids, await query<SessionRow>(this.#db, SESSIONS, [JSON.stringify(ids)]), now)
  }
}

// SQLite's outbox store: the event row and its stream rows, statement by statement. SQLite runs
// statements on this thread without round trips, so row by row costs nothing there; the hooks then
// add their rows the same way (afterEvent). Hot path: plain-text statements (platform/db/raw-sql.ts).
import type { Db, Tx } from '../../platform/db/index.ts'
import { run } from '../../platform/db/raw-sql.ts'
import type { OutboxStore, Written } from '../outbox-store.ts'
import { SQLITE_STREAM_INSERT } from '../stream-log.ts'
import type { EmittedEvent } from '../subscribers.ts'

const EVENT_INSERT =
  'insert into events (id, event, file_id, data, run_timestamp, created_at) values (?, ?, ?, ?, ?, ?)'

export function openSqliteOutbox(db: Db): OutboxStore {
  const writeEventRow = async (tx: Tx, event: Omit<EmittedEvent, 'readers'>): Promise<void> => {
    const { id, fileId, data, runTimestamp, createdAt } = event
    await run(tx, db, EVENT_INSERT, [id, event.event, fileId, data, runTimestamp, createdAt])
  }
  return {
    wakesHubAtCommit: true,
    writeEventRow,
    async writeEvent(_ctx, tx, event): Promise<Written> {
      await writeEventRow(tx, event)
      // The event's rows in the live stream's log, one per enabled reader.
      const readers = JSON.stringify(event.readers)
      const { affected } = await run(tx, db, SQLITE_STREAM_INSERT, [event.id, readers])
      return { streamed: affected > 0, answer: {} }
    },
  }
}

// PostgreSQL's outbox store: the event, its stream rows, the hooks' statement parts (the delivery
// engine's fan-out) and the NOTIFY that wakes the stream hubs at commit, in one statement: one round
// trip per emit (tuned by `npm run bench:emit`). Hot path: plain-text statements
// (platform/db/raw-sql.ts), each text prepared once per connection.
import type { Db, Tx } from '../../platform/db/index.ts'
import { run } from '../../platform/db/raw-sql.ts'
import type { OutboxStore, Written } from '../outbox-store.ts'
import { PG_STREAM_CTE, streamNotify } from '../stream-log.ts'
import type { EmitContext, EmitHook, EmittedEvent, StatementPart } from '../subscribers.ts'
import { streamChannel } from '../wake.ts'

const EVENT_INSERT =
  'insert into events (id, event, file_id, data, run_timestamp, created_at) values (?, ?, ?, ?, ?, ?)'

const eventParams = (event: Omit<EmittedEvent, 'readers'>) => [
  event.id,
  event.event,
  event.fileId,
  event.data,
  event.runTimestamp,
  event.createdAt,
]

/** The emit statement with `parts`: the event (`ev`), its stream rows (`st`), then the parts. */
function emitText(parts: readonly StatementPart[]): string {
  const ctes = [`ev as (${EVENT_INSERT})`, PG_STREAM_CTE, ...parts.map((part) => part.ctes)]
  const columns = [...parts.map((part) => part.columns), streamNotify(streamChannel.name)]
  return `with ${ctes.join(', ')} select ${columns.join(', ')}`
}

export function openPostgresOutbox(db: Db): OutboxStore {
  // The texts, by the hooks' list (the same list every emit: subscribers register at start).
  const texts = new WeakMap<readonly EmitHook[], { text: string; parts: StatementPart[] }>()
  const statementOf = (hooks: readonly EmitHook[]) => {
    let statement = texts.get(hooks)
    if (statement === undefined) {
      const parts = hooks.flatMap((hook) => (hook.statementPart ? [hook.statementPart] : []))
      statement = { text: emitText(parts), parts }
      texts.set(hooks, statement)
    }
    return statement
  }
  return {
    wakesHubAtCommit: false,
    async writeEventRow(tx, event) {
      await run(tx, db, EVENT_INSERT, eventParams(event))
    },
    async writeEvent(ctx: EmitContext, tx: Tx, event: EmittedEvent, hooks): Promise<Written> {
      const { text, parts } = statementOf(hooks)
      const params: unknown[] = [...eventParams(event), event.id, event.readers]
      for (const part of parts) params.push(...part.params(ctx, event))
      const { rows } = await run<Record<string, unknown>>(tx, db, text, params)
      const answer = rows[0] ?? {}
      return { streamed: answer.streamed != null, answer }
    },
  }
}

// PostgreSQL: the outbox's one emit statement also sends the change's NOTIFY (a part of it:
// events/subscribers.ts StatementPart), which PostgreSQL delivers at commit, to every process.
import type { EmitHook, StatementPart } from '../../../events/index.ts'
import type { Db } from '../../../platform/db/index.ts'
import { changeOf } from '../change-of.ts'
import { LIVE_CHANNEL } from './bus.ts'

const statementPart: StatementPart = {
  ctes: 'live_p as (select ?::text as p)',
  columns: `(select count(pg_notify('${LIVE_CHANNEL}', p)) from live_p where p is not null) as live_n`,
  params: (_ctx, event) => {
    const change = changeOf(event)
    return [change === null ? null : JSON.stringify([change])]
  },
}

export function postgresChanges(_db: Db): EmitHook {
  return { statementPart, afterEvent: async () => 0 }
}

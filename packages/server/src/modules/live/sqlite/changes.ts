// SQLite: the emitting process relays the change once its transaction committed (to its hubs, and
// through the cluster's IPC to the other processes: sqlite/bus.ts).
import type { EmitHook } from '../../../events/index.ts'
import type { Db } from '../../../platform/db/index.ts'
import { changeOf } from '../change-of.ts'
import { liveBusOf } from '../open-bus.ts'

export function sqliteChanges(db: Db): EmitHook {
  return {
    async afterEvent(_ctx, _tx, event) {
      const change = changeOf(event)
      if (change === null) return 0
      db.whenTransactionEnds?.((committed) => {
        if (committed) liveBusOf(db).publish(change)
      })
      return 0
    },
  }
}

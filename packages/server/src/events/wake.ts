// Waking delivery workers when deliveries become due.
import type { Db, Executor } from '../platform/db/index.ts'
import { WakeChannel } from '../platform/jobs.ts'

/** Wakes delivery workers (on PostgreSQL by NOTIFY, delivered at commit only). */
export const deliveryChannel = new WakeChannel('tessera_webhook_deliveries')

/** Tells delivery workers that deliveries became due (see WakeChannel.wake). */
export function wakeWorkers(db: Db, executor: Executor): Promise<void> {
  return deliveryChannel.wake(db, executor)
}

/**
 * Wakes the live event stream hubs (stream/hub.ts). On PostgreSQL the emit statement sends
 * its NOTIFY itself (store.ts); on SQLite emitEvent wakes this process's hub at commit.
 */
export const streamChannel = new WakeChannel('tessera_event_stream')

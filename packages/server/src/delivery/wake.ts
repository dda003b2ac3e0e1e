// Waking delivery workers when deliveries become due.
import type { Db, Executor } from '../platform/db/index.ts'
import { WakeChannel } from '../platform/jobs.ts'

/** Wakes delivery workers (on PostgreSQL by NOTIFY, delivered at commit only). */
export const deliveryChannel = new WakeChannel('tessera_webhook_deliveries')

/** Tells delivery workers that deliveries became due (see WakeChannel.wake). */
export function wakeWorkers(db: Db, executor: Executor): Promise<void> {
  return deliveryChannel.wake(db, executor)
}

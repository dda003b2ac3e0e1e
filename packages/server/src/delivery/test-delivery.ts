// A webhook's test delivery (POST /webhook/:id/test): a sample event, written by the outbox as an
// event row alone (no reader, no fan-out), and one delivery of it to that one webhook, through the
// normal delivery machinery and log (the worker adds `x-service-test: 1`).
import { randomUUID } from 'node:crypto'
import type { EventName } from '../contract/index.ts'
import { writeSampleEvent } from '../events/index.ts'
import type { Db, Tx } from '../platform/db/index.ts'
import { newId } from '../platform/ids.ts'
import { wakeWorkers } from './wake.ts'

export interface TestDelivery {
  webhookId: string
  event: EventName
  ownerEmail: string
  /** The sample file the event concerns. */
  fileId: string
  data: unknown
  now: number
}

/** Queues a test delivery of a sample event to one webhook; answers the delivery's id. */
export async function emitTestDelivery(db: Db, tx: Tx, test: TestDelivery): Promise<string> {
  const { now } = test
  const eventId = await writeSampleEvent(db, tx, {
    event: test.event,
    fileId: test.fileId,
    data: test.data,
    now,
  })
  const deliveryId = newId(now)
  await tx
    .insertInto('deliveries')
    .values({
      id: deliveryId,
      uuid: randomUUID(),
      event_id: eventId,
      webhook_id: test.webhookId,
      owner_email: test.ownerEmail,
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      lease_expires_at: null,
      leased_by: null,
      last_status_code: null,
      last_error_code: null,
      created_at: now,
      updated_at: now,
      completed_at: null,
      is_test: 1,
    })
    .execute()
  await wakeWorkers(db, tx)
  return deliveryId
}

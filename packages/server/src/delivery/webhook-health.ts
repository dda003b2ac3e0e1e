// The engine's writes to a webhook's row: its health (failing_since, store-texts.ts FAILING) and
// disabling a webhook that kept failing or is gone. The webhooks module owns the table; these
// columns are the engine's to write (docs/architecture.md, "delivery/"), in the
// transaction that records the attempt that decided them.
import type { Executor } from '../platform/db/index.ts'

/** Disables a webhook for `reason` (a new revision, as a change by its owner would make). */
export async function disableWebhook(db: Executor, id: string, reason: string, now: number): Promise<void> {
  await db
    .updateTable('webhooks')
    .set((eb) => ({ disabled: 1, disabled_reason: reason, updated_at: now, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .execute()
}

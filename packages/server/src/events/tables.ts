// The tables events/ owns (docs/architecture.md, "Who owns which table"): their row types, added to
// the kernel's one Kysely `Database` type by declaration merging, so platform/ never imports a feature.
// The conventions of platform/db/schema.ts hold (ms timestamps, 0/1 booleans, JSON as text).
import type { Generated } from 'kysely'

export interface EventsTable {
  id: string
  event: string
  file_id: string
  /** JSON text of the event's `data`. */
  data: string
  run_timestamp: number
  created_at: number
}

/** The live event stream's log: who may read which event, in commit order (migration 0014). */
interface EventStreamTable {
  /** Assigned at insert; on PostgreSQL ordered by `tx` first (see the migration). */
  seq: Generated<number>
  /** PostgreSQL: the emitting transaction's id (xid8 as a number); SQLite: 0. */
  tx: number
  event_id: string
  /** An account that may read the event's file (owner, shares; finer rules for items). */
  account_id: string
}

/** A deleted file whose events are not all pruned yet (migration 0022, events/retention.ts). */
interface DeletedFilesTable {
  file_id: string
  deleted_at: number
}

export interface DeliveriesTable {
  id: string
  /** The envelope's `uuid` and the `webhook-id` header: stable across retries. */
  uuid: string
  event_id: string
  webhook_id: string
  /** Envelope `owner`: the webhook owner's e-mail when the event happened. */
  owner_email: string
  /** pending | delivering | succeeded | failed | paused */
  status: string
  attempts: number
  next_attempt_at: number
  lease_expires_at: number | null
  leased_by: string | null
  last_status_code: number | null
  last_error_code: string | null
  created_at: number
  updated_at: number
  completed_at: number | null
  /** 1 for a test delivery (POST /webhook/:id/test): sent with `x-service-test: 1`. */
  is_test: number
}

declare module '../platform/db/schema.ts' {
  interface Database {
    events: EventsTable
    event_stream: EventStreamTable
    deleted_files: DeletedFilesTable
    deliveries: DeliveriesTable
  }
}

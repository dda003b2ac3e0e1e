// The tables delivery/ owns (docs/architecture.md, "Who owns which table"): their row types, added to
// the kernel's one Kysely `Database` type by declaration merging, so platform/ never imports a feature.
// The conventions of platform/db/schema.ts hold (ms timestamps, 0/1 booleans, JSON as text).

export interface DeliveryAttemptsTable {
  id: string
  delivery_id: string
  attempt: number
  started_at: number
  duration_ms: number
  status_code: number | null
  error_code: string | null
  error_message: string | null
  response_excerpt: string
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
    deliveries: DeliveriesTable
    delivery_attempts: DeliveryAttemptsTable
  }
}

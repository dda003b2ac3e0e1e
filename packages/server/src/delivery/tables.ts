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

declare module '../platform/db/schema.ts' {
  interface Database {
    delivery_attempts: DeliveryAttemptsTable
  }
}

// The tables modules/webhooks owns (docs/architecture.md, "Who owns which table"): their row types, added to
// the kernel's one Kysely `Database` type by declaration merging, so platform/ never imports a feature.
// The conventions of platform/db/schema.ts hold (ms timestamps, 0/1 booleans, JSON as text).

export interface WebhooksTable {
  id: string
  owner_id: string
  event: string
  url: string
  /** The raw secretToken: the HMAC key of the Standard Webhooks signature. Never returned or logged. */
  secret: string
  /** bcrypt of `secret`, sent as `x-service-token` (computed once, at registration or rotation). */
  service_token: string
  /** The secret before the last rotation; signs too until `previous_secret_expires_at`. */
  previous_secret: string | null
  previous_secret_expires_at: number | null
  disabled: number
  /** Why the webhook was disabled: 'owner', 'gone' (410), 'failing'; null while enabled. */
  disabled_reason: string | null
  /** First failed attempt since the last success (for TESSERA_WEBHOOK_DISABLE_AFTER). */
  failing_since: number | null
  created_at: number
  updated_at: number
  version: number
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    webhooks: WebhooksTable
  }
}

// The one Kysely `Database` type of both SQL dialects. It holds the kernel's own tables here; every
// other table's row type lives beside the code that owns it (modules/<feature>/tables.ts,
// events/tables.ts, delivery/tables.ts) and joins this interface by declaration merging
// (`declare module '…/platform/db/schema.ts' { interface Database { … } }`), so the kernel gets every
// table without importing a feature. Conventions that keep one schema for SQLite and PostgreSQL:
// timestamps are integer milliseconds (bigint), booleans are integers 0/1, JSON values are text.

/** The process registry (platform/workers.ts): one row per live or recently dead worker. */
interface WorkersTable {
  /** The worker's ID, the `leased_by` of its jobs. */
  id: string
  pid: number
  host: string
  started_at: number
  heartbeat_at: number
}

interface JobsTable {
  id: string
  /** 'convert': turn the file's current revision into an optimized GLB (modules/conversion). */
  kind: string
  file_id: string
  /**
   * The file's `revision` the job converts: a job for an older revision must not touch a newer one
   * (migration 0021; -1 for a legacy running job that cannot be matched to a revision).
   */
  file_revision: number
  /** The account the job works for (the file's owner): claims are fair between accounts. */
  account_id: string
  /** When the job was last leased (ms); null until its first claim. */
  claimed_at: number | null
  /** queued | running | done | failed (a done or failed job is kept as the conversion's record) */
  state: string
  /** Not before this time (ms). */
  run_at: number
  attempts: number
  lease_until: number | null
  leased_by: string | null
  last_error: string | null
  created_at: number
  updated_at: number
}

/** Idempotency-Key of a create request (platform/idempotency.ts). */
interface IdempotencyKeysTable {
  account_id: string
  key: string
  request_hash: string
  /** Null while the first request with the key runs. */
  status: number | null
  body: string | null
  created_at: number
  locked_at: number
  expires_at: number
}

/** The kernel's tables; the owners' tables.ts files add theirs (docs/architecture.md, "Who owns which table"). */
export interface Database {
  idempotency_keys: IdempotencyKeysTable
  jobs: JobsTable
  workers: WorkersTable
}

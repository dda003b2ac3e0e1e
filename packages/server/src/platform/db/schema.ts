// Table types shared by both SQL dialects. Conventions that keep one schema for SQLite and
// PostgreSQL: timestamps are integer milliseconds (bigint), booleans are integers 0/1, and JSON
// values are stored as text.
import type { Generated } from 'kysely'
import type { FileState } from '../../contract/index.ts'

export interface AccountsTable {
  id: string
  email: string
  username: string
  password_hash: string
  is_admin: number
  disabled: number
  created_at: number
  updated_at: number
  /**
   * Epoch ms: auth tokens issued before it are refused (password change or reset, disabling).
   * Generated: 0 (never revoked) by default, so inserts may leave it out.
   */
  tokens_valid_after: Generated<number>
}

export interface SessionsTable {
  id: string
  account_id: string
  created_at: number
  /** Last keep-alive + session TTL. */
  expires_at: number
  /** Set by DELETE /account/session: the moment the deletion takes effect. */
  ends_at: number | null
  /** Set when a newer session of the same account took over (effective at once). */
  superseded_at: number | null
}

interface LoginFailuresTable {
  key: string
  window_start: number
  count: number
}

export interface FilesTable {
  id: string
  owner_id: string
  /** Account that uploaded the current revision. */
  user_id: string
  parent: string
  key: string
  name: string
  size: number
  sha256: string
  state: FileState
  error: string
  progress: number
  bucket: string
  /** Where the original bytes live inside the bucket. */
  blob_key: string
  share_token: string
  is_link: number
  allow_live_public_meetings: number
  roles: string
  attributes: string
  scene_tree_names: string
  scene_tree_roots: string
  favorited_by: string
  type: string
  created_at: number
  updated_at: number
  revision_date: number
  /** The API's `__v`: moves with every change of the record (a revision, a share). */
  version: number
  /**
   * The revision number (migration 0021): +1 for each new revision and for nothing else; conversion
   * jobs name the revision they convert by it.
   */
  revision: Generated<number>
  /**
   * The revision number people see (migration 0026): 1 for the first upload, +1 for each new
   * revision; `file_revisions.revision_number` keeps it for the earlier ones.
   */
  revision_number: Generated<number>
  /** The optimized GLB (null until a conversion of this file succeeded). */
  optimized_key: string | null
  optimized_size: number
  optimized_sha256: string
  /**
   * The PNG thumbnail of the optimized model (migration 0012_thumbnails; null until a conversion
   * made one). Generated: defaults in the database, so inserts may leave them out.
   */
  thumbnail_key: Generated<string | null>
  thumbnail_size: Generated<number>
  thumbnail_sha256: Generated<string>
}

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

interface EventsTable {
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

export interface FileSharesTable {
  file_id: string
  account_id: string
  /** 'viewer' or 'editor'. */
  role: string
  created_at: number
}

/**
 * An earlier revision of a file (migration 0018_file_revisions); the current one is the `files`
 * row. `version` is the file's `__v` while it was current.
 */
export interface FileRevisionsTable {
  file_id: string
  version: number
  name: string
  size: number
  sha256: string
  /** The revision's original bytes, kept in the store while this row is. */
  blob_key: string
  /** Account that uploaded this revision. */
  uploaded_by: string
  revision_date: number
  /** Its revision number (1 for the file's first upload; migration 0026). */
  revision_number: Generated<number>
  /**
   * Set when the revision was dropped (past TESSERA_FILE_REVISIONS_KEPT, or with its file): no longer
   * listed, its blob is being removed, then the row. A row left so by a crash is finished at start-up.
   */
  pruned_at: number | null
}

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

interface SceneNodesTable {
  file_id: string
  /** Stable node ID of the file's scene tree (what scene attributes are keyed by). */
  node_id: string
  parent_id: string | null
  name: string
  /** Order among siblings. */
  position: number
}

interface SceneAttributesTable {
  file_id: string
  node_id: string
  /** Attribute name. */
  name: string
  /** JSON text of the attribute value (never JSON null: null removes the attribute). */
  value: string
  updated_by: string
  updated_at: number
}

/** Running totals of a file's scene attributes (kept by every attribute write). */
interface SceneAttributeTotalsTable {
  file_id: string
  attributes: number
  /** UTF-8 bytes of the names plus the JSON text of the values. */
  bytes: number
}

/** Running totals of a file's annotations or configurations (kept by every create, update and delete). */
interface FileItemTotalsTable {
  file_id: string
  /** The item's noun: 'annotation' or 'configuration'. */
  kind: string
  items: number
  /** UTF-8 bytes of the items' stored text and JSON columns. */
  bytes: number
}

export interface AnnotationsTable {
  id: string
  file_id: string
  author_id: string
  name: string
  content: string
  type: number
  color: string
  camera_x: number
  camera_y: number
  camera_z: number
  /** JSON arrays. */
  targets: string
  tags: string
  /** JSON arrays of e-mails or "*". */
  read_permissions: string
  write_permissions: string
  /** `_id` of the record's `permissions` object. */
  permissions_id: string
  /** JSON object with the nine permission arrays. */
  permissions: string
  /** Record `date` (ms). */
  created_at: number
  /** Record `lastUpdate` (ms). */
  updated_at: number
  version: number
}

export interface ConfigurationsTable {
  id: string
  file_id: string
  author_id: string
  name: string
  last_modification_author_id: string | null
  /** Null until the first update. */
  last_modification_date: number | null
  last_activation_date: number
  locked_by: string | null
  read_permissions: string
  write_permissions: string
  /** JSON object: the viewer-state fields of the record (camera, environment, layers, …). */
  settings: string
  /** Record `date` (ms). */
  created_at: number
  version: number
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

export interface Database {
  accounts: AccountsTable
  sessions: SessionsTable
  login_failures: LoginFailuresTable
  idempotency_keys: IdempotencyKeysTable
  files: FilesTable
  file_shares: FileSharesTable
  file_revisions: FileRevisionsTable
  webhooks: WebhooksTable
  events: EventsTable
  event_stream: EventStreamTable
  deleted_files: DeletedFilesTable
  deliveries: DeliveriesTable
  delivery_attempts: DeliveryAttemptsTable
  jobs: JobsTable
  workers: WorkersTable
  scene_nodes: SceneNodesTable
  scene_attributes: SceneAttributesTable
  scene_attribute_totals: SceneAttributeTotalsTable
  annotations: AnnotationsTable
  configurations: ConfigurationsTable
  file_item_totals: FileItemTotalsTable
}

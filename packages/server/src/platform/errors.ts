// One registry of errors: every error the API can answer has a stable code, a status and a safe
// title. Responses are RFC 9457 problem documents (`application/problem+json`).

export const ERRORS = {
  VALIDATION_FAILED: { status: 400, title: 'Bad Request' },
  MALFORMED_JSON: { status: 400, title: 'Bad Request' },
  AMBIGUOUS_CREDENTIALS: { status: 400, title: 'Bad Request' },
  BAD_REQUEST: { status: 400, title: 'Bad Request' },
  WEAK_SECRET: { status: 400, title: 'Bad Request' },
  UNKNOWN_NODE: { status: 400, title: 'Bad Request' },
  // A body that is not a BCF file this server reads, or past one of its bounds (modules/bcf).
  BCF_INVALID: { status: 400, title: 'Bad Request' },
  // A list endpoint's `cursor` that is not one this API answered (platform/paging.ts).
  INVALID_CURSOR: { status: 400, title: 'Bad Request' },
  INVALID_CREDENTIALS: { status: 401, title: 'Unauthorized' },
  AUTH_TOKEN_MISSING: { status: 401, title: 'Unauthorized' },
  AUTH_TOKEN_INVALID: { status: 401, title: 'Unauthorized' },
  AUTH_TOKEN_EXPIRED: { status: 401, title: 'Unauthorized' },
  ACCOUNT_DISABLED: { status: 401, title: 'Unauthorized' },
  SESSION_MISSING: { status: 401, title: 'Unauthorized' },
  SESSION_INVALID: { status: 401, title: 'Unauthorized' },
  SESSION_EXPIRED: { status: 401, title: 'Unauthorized' },
  SESSION_SUPERSEDED: { status: 401, title: 'Unauthorized' },
  SESSION_DELETED: { status: 401, title: 'Unauthorized' },
  NO_LICENSE_AVAILABLE: { status: 402, title: 'Payment Required' },
  FORBIDDEN: { status: 403, title: 'Forbidden' },
  NOT_FOUND: { status: 404, title: 'Not Found' },
  ROUTE_NOT_FOUND: { status: 404, title: 'Not Found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method Not Allowed' },
  CONFLICT: { status: 409, title: 'Conflict' },
  NOT_READY: { status: 409, title: 'Conflict' },
  REQUEST_TIMEOUT: { status: 408, title: 'Request Timeout' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload Too Large' },
  RANGE_NOT_SATISFIABLE: { status: 416, title: 'Range Not Satisfiable' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported Media Type' },
  TOO_MANY_REQUESTS: { status: 429, title: 'Too Many Requests' },
  INTERNAL_ERROR: { status: 500, title: 'Internal Server Error' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service Unavailable' },
  WEBHOOK_URL_INVALID: { status: 400, title: 'Bad Request' },
  WEBHOOK_URL_FORBIDDEN: { status: 400, title: 'Bad Request' },
  WEBHOOK_URL_UNRESOLVABLE: { status: 400, title: 'Bad Request' },
  WEBHOOK_LIMIT_REACHED: { status: 409, title: 'Conflict' },
  WEBHOOK_DISABLED: { status: 409, title: 'Conflict' },
  DELIVERY_IN_PROGRESS: { status: 409, title: 'Conflict' },
  // Scene attribute limits (hardening batch 2): the detail names the limit, its variable and the value.
  SCENE_NODE_TOO_LARGE: { status: 413, title: 'Payload Too Large' },
  SCENE_FILE_TOO_LARGE: { status: 413, title: 'Payload Too Large' },
  SCENE_WRITE_TOO_LARGE: { status: 413, title: 'Payload Too Large' },
  // Conversion flow: uploads that cannot be converted are refused before anything is kept.
  UNSUPPORTED_FORMAT: { status: 415, title: 'Unsupported Media Type' },
  // Browsers (cookie sign-in, admin console).
  CSRF_REJECTED: { status: 403, title: 'Forbidden' },
  WRONG_PASSWORD: { status: 403, title: 'Forbidden' },
  // The live event stream (GET /events/stream): too many open streams for the account, or in the process.
  STREAM_LIMIT_REACHED: { status: 429, title: 'Too Many Requests' },
  // Live sessions (docs/live.md): answered in a `closed` message, before the close frame.
  LIVE_FILE_FULL: { status: 429, title: 'Too Many Requests' },
  LIVE_CONNECTIONS_LIMIT: { status: 429, title: 'Too Many Requests' },
  LIVE_GUESTS_NOT_ALLOWED: { status: 403, title: 'Forbidden' },
  STREAMS_BUSY: { status: 429, title: 'Too Many Requests' },
  // Per-file item limits (hardening batch 4): counts are 409 (the file's state refuses: delete one
  // first, like WEBHOOK_LIMIT_REACHED), bytes 413 (like SCENE_FILE_TOO_LARGE). The detail names the
  // limit, its variable and the value.
  FILE_ITEMS_LIMIT_REACHED: { status: 409, title: 'Conflict' },
  FILE_ITEMS_TOO_LARGE: { status: 413, title: 'Payload Too Large' },
  SHARE_LIMIT_REACHED: { status: 409, title: 'Conflict' },
  // An annotation's discussion holds TESSERA_ANNOTATION_MAX_REPLIES replies: delete one first.
  REPLY_LIMIT_REACHED: { status: 409, title: 'Conflict' },
  // An account already starred TESSERA_ACCOUNT_MAX_FAVOURITES files: unstar one first.
  FAVOURITE_LIMIT_REACHED: { status: 409, title: 'Conflict' },
  // A configuration another account holds the lock of (POST /file/configuration/lock/): the detail
  // names the holder; they or the file's owner release it.
  CONFIGURATION_LOCKED: { status: 409, title: 'Conflict' },
  // Per-account storage (TESSERA_ACCOUNT_QUOTA_BYTES, TESSERA_ACCOUNT_MAX_ATTRIBUTE_BYTES): the
  // detail names the quota, its variable, the usage and the size asked.
  QUOTA_EXCEEDED: { status: 413, title: 'Payload Too Large' },
  // Idempotency-Key (docs/api.md, "Idempotent requests"): a malformed key, the key of a request
  // still running, the key of another request.
  INVALID_IDEMPOTENCY_KEY: { status: 400, title: 'Bad Request' },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, title: 'Conflict' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, title: 'Unprocessable Content' },
  // Accounts: a change that would leave no enabled administrator; an auth token issued before the
  // account's tokens were revoked (password change or reset, disabling).
  LAST_ADMIN: { status: 409, title: 'Conflict' },
  TOKEN_REVOKED: { status: 401, title: 'Unauthorized' },
  // Share by link (modules/links, docs/api.md "Links"): a link session asking to write, or calling a
  // route that does not take link sessions; the link's password missing or wrong; the link unknown
  // (never made, revoked, rotated, its file deleted) or past its expiry; a link session that is not
  // valid, has expired, or whose link has ended; a second link for a file.
  LINK_READ_ONLY: { status: 403, title: 'Forbidden' },
  LINK_NOT_ALLOWED: { status: 403, title: 'Forbidden' },
  LINK_PASSWORD_REQUIRED: { status: 401, title: 'Unauthorized' },
  LINK_PASSWORD_WRONG: { status: 403, title: 'Forbidden' },
  LINK_NOT_FOUND: { status: 404, title: 'Not Found' },
  LINK_EXPIRED: { status: 410, title: 'Gone' },
  LINK_SESSION_MISSING: { status: 401, title: 'Unauthorized' },
  LINK_SESSION_INVALID: { status: 401, title: 'Unauthorized' },
  LINK_SESSION_EXPIRED: { status: 401, title: 'Unauthorized' },
  LINK_SESSION_ENDED: { status: 401, title: 'Unauthorized' },
  LINK_EXISTS: { status: 409, title: 'Conflict' },
} as const satisfies Record<string, { status: number; title: string }>

export type ErrorCode = keyof typeof ERRORS

export interface Problem {
  success: false
  status: number
  title: string
  detail: string
  code: ErrorCode
}

/** An expected error: its `detail` is safe to show to the caller. */
export class AppError extends Error {
  override name = 'AppError'
  readonly code: ErrorCode
  readonly status: number
  /** Extra response headers (e.g. `Retry-After`). */
  readonly headers: Record<string, string>

  constructor(code: ErrorCode, detail: string, headers: Record<string, string> = {}) {
    super(detail)
    this.code = code
    this.status = ERRORS[code].status
    this.headers = headers
  }

  toProblem(): Problem {
    return {
      success: false,
      status: this.status,
      title: ERRORS[this.code].title,
      detail: this.message,
      code: this.code,
    }
  }
}

// Typed errors. Every failed call throws a TesseraError carrying the server's problem document
// (RFC 9457): `code` is the stable contract, `detail` is for humans, `requestId` finds the log lines.
import type { components } from './generated/api.ts'

/** Every stable code the server answers (from openapi.json's Problem schema). */
export type ProblemCode = components['schemas']['Problem']['code']
/** Codes of failures the SDK itself detects: no HTTP answer at all, or one that is not a problem document. */
export type ClientCode = 'NETWORK_ERROR' | 'UNEXPECTED_RESPONSE' | 'TIMEOUT' | 'ABORTED' | 'CONVERSION_FAILED'

export interface TesseraErrorInit {
  status: number
  code: ProblemCode | ClientCode
  detail: string
  title?: string
  requestId?: string | undefined
  /** Seconds from the answer's Retry-After (429, 402, 503), when it had one. */
  retryAfter?: number | undefined
  cause?: unknown
}

export class TesseraError extends Error {
  /** HTTP status; 0 when no answer arrived (network error, timeout, abort). */
  readonly status: number
  readonly code: ProblemCode | ClientCode
  readonly detail: string
  readonly title: string
  /** The `x-request-id` of the answer, when there was one. */
  readonly requestId: string | undefined
  /** Seconds to wait before trying again, from the answer's Retry-After (429 and the like). */
  readonly retryAfter: number | undefined

  constructor(init: TesseraErrorInit) {
    super(`${init.code}: ${init.detail}`, init.cause === undefined ? undefined : { cause: init.cause })
    this.name = 'TesseraError'
    this.status = init.status
    this.code = init.code
    this.detail = init.detail
    this.title = init.title ?? ''
    this.requestId = init.requestId
    this.retryAfter = init.retryAfter
  }
}

/**
 * 402 NO_LICENSE_AVAILABLE: every license of the instance is held by a valid session. Retrying at
 * once cannot help; wait until someone closes a session (or ask an admin for more licenses).
 */
export class NoLicenseAvailableError extends TesseraError {
  override readonly code = 'NO_LICENSE_AVAILABLE' as const
  constructor(init: TesseraErrorInit) {
    super(init)
    this.name = 'NoLicenseAvailableError'
  }
}

/**
 * 401 SESSION_SUPERSEDED: the same account opened a newer session (another tab, device or script),
 * which took this session's license. Reconnecting would in turn supersede that one, so the SDK
 * never does it by itself: the application decides.
 */
export class SessionSupersededError extends TesseraError {
  override readonly code = 'SESSION_SUPERSEDED' as const
  constructor(init: TesseraErrorInit) {
    super(init)
    this.name = 'SessionSupersededError'
  }
}

/** The right class for a problem's code. */
export function problemError(init: TesseraErrorInit): TesseraError {
  if (init.code === 'NO_LICENSE_AVAILABLE') return new NoLicenseAvailableError(init)
  if (init.code === 'SESSION_SUPERSEDED') return new SessionSupersededError(init)
  return new TesseraError(init)
}

/** True for the session failures after which this session can never work again. */
export function isSessionLost(error: unknown): error is TesseraError {
  return (
    error instanceof TesseraError &&
    (error.code === 'SESSION_SUPERSEDED' ||
      error.code === 'SESSION_EXPIRED' ||
      error.code === 'SESSION_DELETED' ||
      error.code === 'SESSION_INVALID' ||
      error.code === 'ACCOUNT_DISABLED' ||
      // The auth token was revoked (a password change): sign in again.
      error.code === 'TOKEN_REVOKED')
  )
}

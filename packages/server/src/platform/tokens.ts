// RS256 tokens. Auth tokens carry `id` (account), `iat`, `iat_ms`, `exp`; any token signed with the
// instance key naming an enabled account and issued after the account's last revocation is valid
// (single sign-on). Session tokens are signed pointers to a
// server-side session row and carry a distinct `typ`, so one can never be used as the other.
//
// Verifying RS256 costs ~80 µs, so verified signatures are cached by token string. Only the
// signature and claims are cached: expiry is re-checked on every use, and everything revocable
// (account disabled, session superseded/expired/deleted) is read from the database per request.
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose'
import { AppError } from './errors.ts'
import type { InstanceKeys } from './keys.ts'

const SESSION_TOKEN_TYP = 'tessera-session+jwt'
/** Link sessions (modules/links): a guest's short-lived pass to one file, never an auth token. */
const LINK_SESSION_TYP = 'tessera-link+jwt'
/** How far in the future the `iat` of a token without `exp` may lie (clocks of SSO apps drift). */
const CLOCK_SKEW_MS = 60_000

export interface AuthClaims {
  accountId: string
  /**
   * Epoch ms the token was issued: `iat_ms` when the token carries one consistent with `iat`
   * (tokens this server signs), else `iat` × 1000 (1-second resolution), else 0 (unknown: refused
   * once the account's tokens were ever revoked).
   */
  issuedAt: number
  /** Epoch ms after which the token is refused. */
  expiresAt: number
  notBefore: number
}

export interface LinkSessionClaims {
  linkId: string
  fileId: string
  /** Epoch ms after which the link session is refused (the JWT's `exp`). */
  expiresAt: number
}

export interface SessionClaims {
  sessionId: string
  accountId: string
}

// A JWT's last characters are its signature's: random, so they tell tokens apart as well as the
// whole ~600 characters do, and hashing them for a lookup costs a fraction. The whole token is
// still compared on every hit, so a token that merely ends the same way is never taken for another.
const FINGERPRINT_LENGTH = 32

interface CacheEntry<V> {
  token: string
  value: V
}

/**
 * Verified claims by token: at most `limit` entries, in two generations. Entries go into `current`
 * until it holds half the limit, then it becomes `previous` and a fresh map starts; a hit in
 * `previous` moves the entry forward. Recently used tokens survive as in an LRU, but a hit in
 * `current` (the usual case) is one lookup, where an LRU Map deletes and re-inserts on every hit.
 */
class TokenCache<V> {
  #current = new Map<string, CacheEntry<V>>()
  #previous = new Map<string, CacheEntry<V>>()
  readonly #generationSize: number
  constructor(limit: number) {
    this.#generationSize = Math.max(1, Math.floor(limit / 2))
  }
  get(token: string): V | undefined {
    const key = token.slice(-FINGERPRINT_LENGTH)
    const entry = this.#current.get(key)
    if (entry !== undefined) return entry.token === token ? entry.value : undefined
    const old = this.#previous.get(key)
    if (old === undefined || old.token !== token) return undefined
    this.set(token, old.value)
    return old.value
  }
  set(token: string, value: V): void {
    if (this.#current.size >= this.#generationSize) {
      this.#previous = this.#current
      this.#current = new Map()
    }
    this.#current.set(token.slice(-FINGERPRINT_LENGTH), { token, value })
  }
}

function issuedAtOf(payload: { iat?: unknown; iat_ms?: unknown }): number {
  if (typeof payload.iat !== 'number') return 0
  const iatMs = payload.iat_ms
  // iat_ms must lie in iat's second: a signer cannot move a token later than its iat says.
  if (typeof iatMs === 'number' && Math.floor(iatMs / 1000) === payload.iat) return iatMs
  return payload.iat * 1000
}

export class TokenService {
  readonly #authCache = new TokenCache<AuthClaims>(10_000)
  readonly #sessionCache = new TokenCache<SessionClaims>(10_000)
  readonly #linkCache = new TokenCache<LinkSessionClaims>(10_000)

  private readonly keys: InstanceKeys
  /** Lifetime of issued tokens, and max age of a token that has no `exp`. */
  private readonly authTokenTtlMs: number

  constructor(keys: InstanceKeys, authTokenTtlMs: number) {
    this.keys = keys
    this.authTokenTtlMs = authTokenTtlMs
  }

  /**
   * `iat_ms` carries the issue time in milliseconds beside `iat` (seconds): a token issued in the
   * same second as, but after, a revocation (the fresh token of a password change) is accepted,
   * and one issued before it in that second is refused.
   */
  async signAuthToken(accountId: string, ttlMs = this.authTokenTtlMs): Promise<string> {
    const nowMs = Date.now()
    const now = Math.floor(nowMs / 1000)
    return new SignJWT({ id: accountId, iat_ms: nowMs })
      .setProtectedHeader({ alg: 'RS256', kid: this.keys.kid, typ: 'JWT' })
      .setIssuedAt(now)
      .setExpirationTime(now + Math.max(1, Math.floor(ttlMs / 1000)))
      .sign(this.keys.privateKey)
  }

  async verifyAuthToken(token: string, now = Date.now()): Promise<AuthClaims> {
    let claims = this.#authCache.get(token)
    if (!claims) {
      claims = await this.#verifyAuth(token)
      this.#authCache.set(token, claims)
    }
    if (now >= claims.expiresAt) throw new AppError('AUTH_TOKEN_EXPIRED', 'The auth token has expired.')
    if (now < claims.notBefore) throw new AppError('AUTH_TOKEN_INVALID', 'The auth token is not valid yet.')
    return claims
  }

  async #verifyAuth(token: string): Promise<AuthClaims> {
    const { payload, protectedHeader } = await this.#verify(token, 'auth')
    if (protectedHeader.typ === SESSION_TOKEN_TYP || protectedHeader.typ === LINK_SESSION_TYP) {
      throw new AppError('AUTH_TOKEN_INVALID', 'A session token is not an auth token.')
    }
    if (typeof payload.id !== 'string' || payload.id === '') {
      throw new AppError('AUTH_TOKEN_INVALID', 'The auth token has no account id claim.')
    }
    let expiresAt: number
    let notBefore = typeof payload.nbf === 'number' ? payload.nbf * 1000 : 0
    if (typeof payload.exp === 'number') {
      expiresAt = payload.exp * 1000
    } else if (typeof payload.iat === 'number') {
      expiresAt = payload.iat * 1000 + this.authTokenTtlMs
      // Without exp, iat sets the lifetime: an iat in the future would stretch it at will, so
      // such a token is refused until its iat comes (give or take a small clock skew).
      notBefore = Math.max(notBefore, payload.iat * 1000 - CLOCK_SKEW_MS)
    } else {
      throw new AppError('AUTH_TOKEN_INVALID', 'The auth token has neither exp nor iat.')
    }
    return { accountId: payload.id, expiresAt, notBefore, issuedAt: issuedAtOf(payload) }
  }

  async signSessionToken(sessionId: string, accountId: string): Promise<string> {
    return new SignJWT({ sid: sessionId })
      .setProtectedHeader({ alg: 'RS256', kid: this.keys.kid, typ: SESSION_TOKEN_TYP })
      .setSubject(accountId)
      .setIssuedAt()
      .sign(this.keys.privateKey)
  }

  async verifySessionToken(token: string): Promise<SessionClaims> {
    let claims = this.#sessionCache.get(token)
    if (!claims) {
      const { payload } = await this.#verify(token, 'session')
      if (typeof payload.sid !== 'string' || typeof payload.sub !== 'string') {
        throw new AppError('SESSION_INVALID', 'The session token is malformed.')
      }
      claims = { sessionId: payload.sid, accountId: payload.sub }
      this.#sessionCache.set(token, claims)
    }
    return claims
  }

  /** A link session: `lid` (link), `fid` (file), expiring after `ttlMs` (whole seconds). */
  async signLinkSession(
    linkId: string,
    fileId: string,
    ttlMs: number,
  ): Promise<LinkSessionClaims & { token: string }> {
    const now = Math.floor(Date.now() / 1000)
    const exp = now + Math.max(1, Math.floor(ttlMs / 1000))
    const token = await new SignJWT({ lid: linkId, fid: fileId })
      .setProtectedHeader({ alg: 'RS256', kid: this.keys.kid, typ: LINK_SESSION_TYP })
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .sign(this.keys.privateKey)
    return { token, linkId, fileId, expiresAt: exp * 1000 }
  }

  /** The claims of a link session signed here; 401 LINK_SESSION_INVALID or LINK_SESSION_EXPIRED. */
  async verifyLinkSession(token: string, now = Date.now()): Promise<LinkSessionClaims> {
    let claims = this.#linkCache.get(token)
    if (!claims) {
      let payload: Awaited<ReturnType<typeof jwtVerify>>['payload']
      try {
        ;({ payload } = await jwtVerify(token, this.keys.publicKey, {
          algorithms: ['RS256'],
          typ: LINK_SESSION_TYP,
        }))
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) {
          throw new AppError('LINK_SESSION_EXPIRED', 'The link session has expired; open the link again.')
        }
        if (error instanceof joseErrors.JOSEError || error instanceof TypeError) {
          throw new AppError('LINK_SESSION_INVALID', 'The link session is not valid.')
        }
        throw error
      }
      const { lid, fid, exp } = payload
      if (typeof lid !== 'string' || typeof fid !== 'string' || typeof exp !== 'number') {
        throw new AppError('LINK_SESSION_INVALID', 'The link session is malformed.')
      }
      claims = { linkId: lid, fileId: fid, expiresAt: exp * 1000 }
      this.#linkCache.set(token, claims)
    }
    if (now >= claims.expiresAt) {
      throw new AppError('LINK_SESSION_EXPIRED', 'The link session has expired; open the link again.')
    }
    return claims
  }

  async #verify(token: string, kind: 'auth' | 'session') {
    const code = kind === 'auth' ? 'AUTH_TOKEN_INVALID' : 'SESSION_INVALID'
    try {
      return await jwtVerify(token, this.keys.publicKey, {
        algorithms: ['RS256'],
        ...(kind === 'session' ? { typ: SESSION_TOKEN_TYP } : {}),
      })
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) {
        throw new AppError(
          kind === 'auth' ? 'AUTH_TOKEN_EXPIRED' : 'SESSION_EXPIRED',
          `The ${kind} token has expired.`,
        )
      }
      if (error instanceof joseErrors.JOSEError || error instanceof TypeError) {
        throw new AppError(code, `The ${kind} token is not valid.`)
      }
      throw error
    }
  }
}

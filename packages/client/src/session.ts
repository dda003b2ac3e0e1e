// The session lifecycle the API imposes: log in (or take an auth token), take a license with
// POST /account/session, keep it alive at half its TTL, and give it back with DELETE on close.
import { isSessionLost, TesseraError } from './errors.ts'
import { type ApiClient, networkError, type Tokens, unwrap } from './http.ts'

export interface SessionOptions {
  /**
   * Open a session (default true). `false`: log in (or take the auth token) only, for the routes that
   * need no session (webhooks, their delivery log, the event stream): no license is taken and the
   * account's other session is left alone. The calls that need a session then answer 401.
   */
  session?: boolean
  /** Keep the session alive automatically (default true). */
  keepAlive?: boolean
  /**
   * Called once when the session can no longer work (superseded by a newer session of the same
   * account, expired, deleted, account disabled), as found by a keep-alive. The SDK never opens a
   * new session by itself: that would supersede the other one in turn.
   */
  onSessionLost?: (error: TesseraError) => void
}

/** The auth token inside login's `cookies` (`jsonwebtoken=<token>`). */
export function tokenFromCookies(cookies: string | undefined): string {
  // The plain login always answers it; only a cookie-mode login (browsers) leaves it out.
  if (!cookies) {
    throw new TesseraError({
      status: 200,
      code: 'UNEXPECTED_RESPONSE',
      detail: 'The login answer holds no token.',
    })
  }
  const value = cookies.slice(cookies.indexOf('=') + 1)
  const end = value.indexOf(';')
  return end === -1 ? value : value.slice(0, end)
}

export class SessionKeeper {
  #timer: ReturnType<typeof setTimeout> | undefined
  #closed = false
  /** A session was opened or resumed (in cookie mode the token is a cookie, not in `tokens`). */
  #active = false
  /** When the server said the session expires without another keep-alive. */
  expiresAt: Date | undefined
  /** Why the session stopped working, once it did. */
  lost: TesseraError | undefined
  /** Opening this session superseded a valid session of the same account (the server said so). */
  supersededOther = false

  private readonly api: ApiClient
  private readonly tokens: Tokens
  private readonly options: SessionOptions & { cookies?: boolean }

  constructor(api: ApiClient, tokens: Tokens, options: SessionOptions & { cookies?: boolean }) {
    this.api = api
    this.tokens = tokens
    this.options = options
  }

  /** Takes a license; 402 NoLicenseAvailableError when none is free. */
  async open(): Promise<void> {
    const answer = await unwrap(this.api.POST('/account/session', {}))
    // Cookie mode: the session token is the cookie the answer set; the SDK keeps no copy.
    if (!this.options.cookies) this.tokens.session = answer.jwt
    this.supersededOther = answer.superseded
    this.#active = true
    // The session answer does not say the TTL; the first keep-alive does (expiresAt).
    await this.keepAlive()
  }

  /** Cookie mode: the session the cookies already hold, if it still works (a keep-alive says so). */
  async resume(): Promise<void> {
    await this.keepAlive()
    this.#active = true
  }

  /** PUT /account/session now; reschedules the automatic one. */
  async keepAlive(): Promise<Date> {
    const answer = await unwrap(this.api.PUT('/account/session', {}))
    const expiresAt = new Date(answer.expiresAt)
    this.expiresAt = expiresAt
    if (this.options.keepAlive !== false) this.#schedule((expiresAt.getTime() - Date.now()) / 2)
    return expiresAt
  }

  #schedule(delayMs: number): void {
    clearTimeout(this.#timer)
    if (this.#closed || this.lost) return
    this.#timer = setTimeout(() => void this.#tick(), Math.max(1_000, delayMs))
    // An open session must not keep a Node process alive by itself.
    unrefTimer(this.#timer)
  }

  async #tick(): Promise<void> {
    try {
      await this.keepAlive()
    } catch (error) {
      const failure = networkError(error)
      if (isSessionLost(failure)) {
        this.lost = failure
        this.options.onSessionLost?.(failure)
        return
      }
      // A transient failure (network, 5xx): try again soon, well before the session expires.
      const left = (this.expiresAt?.getTime() ?? Date.now()) - Date.now()
      this.#schedule(Math.min(30_000, left / 4))
    }
  }

  /** Stops the keep-alive and leaves the session as it is (it was superseded, or is handed over). */
  stop(): void {
    this.#closed = true
    clearTimeout(this.#timer)
  }

  /** Stops the keep-alive and ends the session at once (POST /account/logout): the license is free now. */
  async logout(): Promise<void> {
    this.stop()
    if (!this.#active || this.lost) return
    await unwrap(this.api.POST('/account/logout', {}))
  }

  /** Stops the keep-alive and deletes the session; its license is free at `effectiveAt`. */
  async close(): Promise<Date | undefined> {
    this.#closed = true
    clearTimeout(this.#timer)
    if (!this.#active || this.lost) return undefined
    const answer = await unwrap(this.api.DELETE('/account/session', {}))
    return new Date(answer.effectiveAt)
  }
}

/**
 * Lets a background timer (session keep-alive, link renewal) not keep a Node process alive by itself.
 * Node's timers are objects with unref(); browsers' are numbers (typed without Node's types, so
 * browser builds need none).
 */
export function unrefTimer(timer: unknown): void {
  if (typeof timer === 'object' && timer !== null && 'unref' in timer && typeof timer.unref === 'function') {
    timer.unref()
  }
}

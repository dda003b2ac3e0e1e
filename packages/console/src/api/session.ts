// Sign-in, the session's keep-alive and sign-out: the SDK's connect()/close() surface.
import { ApiError, type Http, isMissingRoute } from './http.ts'

export interface Identity {
  username: string
  email: string
}

/** Renew before expiry: at half the time left, never more often than every 10 s nor rarer than 5 min. */
export function keepAliveDelay(expiresAt: string | undefined, now = Date.now()): number {
  const left = expiresAt ? Date.parse(expiresAt) - now : Number.NaN
  if (!Number.isFinite(left)) return 60_000
  return Math.min(300_000, Math.max(10_000, left / 2))
}

export class Session {
  identity: Identity | null = null
  private timer: ReturnType<typeof setTimeout> | null = null

  constructor(private readonly http: Http) {}

  get connected(): boolean {
    return this.http.tokens?.session != null
  }

  /** Log in, then take a license (POST /account/session); keeps the session alive until close(). */
  async connect(username: string, password: string): Promise<Identity> {
    const login = await this.http.json<{ email: string; username: string; cookies: string }>(
      'POST',
      '/account/login/',
      { json: { username, password }, anonymous: true },
    )
    const auth = /jsonwebtoken=([^;\s]+)/.exec(login.cookies)?.[1]
    if (!auth) throw new ApiError({ status: 500, code: 'LOGIN_ANSWER_UNREADABLE', detail: 'No token.' })
    this.http.tokens = { auth, session: null }
    this.identity = { username: login.username, email: login.email }
    try {
      await this.openSession()
    } catch (error) {
      // No license (402) or any other refusal: nothing half-signed-in stays behind.
      this.http.tokens = null
      this.identity = null
      throw error
    }
    return this.identity
  }

  /** A new session for the same auth token: takes the license back from a session elsewhere. */
  async openSession(): Promise<void> {
    const tokens = this.http.tokens
    if (!tokens) throw new ApiError({ status: 401, code: 'AUTH_TOKEN_MISSING', detail: 'Not signed in.' })
    tokens.session = null
    const answer = await this.http.json<{ jwt: string }>('POST', '/account/session')
    tokens.session = answer.jwt
    this.http.lost = null
    this.schedule(undefined)
  }

  private schedule(expiresAt: string | undefined): void {
    this.stopKeepAlive()
    this.timer = setTimeout(() => void this.keepAlive(), keepAliveDelay(expiresAt))
  }

  async keepAlive(): Promise<void> {
    if (!this.connected) return
    try {
      const answer = await this.http.json<{ expiresAt: string }>('PUT', '/account/session')
      this.schedule(answer.expiresAt)
    } catch (error) {
      // A lost session is reported by Http's listeners; a network blip retries soon.
      if (!(error instanceof ApiError && error.status === 401)) this.schedule(undefined)
    }
  }

  stopKeepAlive(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  /**
   * Sign out: frees the license at once where the server has POST /account/logout, else deletes
   * the session the spec's way (it stops after the server's grace delay). Tokens are dropped
   * either way.
   */
  async close(): Promise<void> {
    this.stopKeepAlive()
    try {
      if (this.connected) {
        try {
          await this.http.fetch('POST', '/account/logout')
        } catch (error) {
          if (!isMissingRoute(error)) throw error
          await this.http.fetch('DELETE', '/account/session')
        }
      }
    } catch {
      // Signing out must always succeed locally, even when the session is already gone.
    } finally {
      this.http.tokens = null
      this.http.lost = null
      this.identity = null
    }
  }

  /** Drop the tokens without calling the server (the session is already gone). */
  forget(): void {
    this.stopKeepAlive()
    this.http.tokens = null
    this.identity = null
  }
}

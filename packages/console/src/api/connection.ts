// The console's connection to the API: the SDK's Tessera (@tessera/client) once signed in, in
// cookie mode (the tokens are HttpOnly cookies, every request carries the CSRF header). Every call
// goes through the SDK's typed client (types generated from openapi.json), with the SDK's errors,
// keep-alive and sign-out. What a page adds on top: one place that notices a lost session, from any
// call, and tells the app (its banner offers to take it back).
import { type Tessera, TesseraError, type TesseraLink } from '@tessera/client'

export { TesseraError as ApiError }

/** Session problems every screen shares: the app shows a banner or the sign-in screen. */
export type SessionLostCode =
  | 'SESSION_SUPERSEDED'
  | 'SESSION_EXPIRED'
  | 'SESSION_DELETED'
  | 'SESSION_INVALID'
  | 'SESSION_MISSING'
  | 'AUTH_TOKEN_EXPIRED'
  | 'AUTH_TOKEN_INVALID'
  | 'ACCOUNT_DISABLED'
  | 'TOKEN_REVOKED'

const SESSION_CODES = new Set<string>([
  'SESSION_SUPERSEDED',
  'SESSION_EXPIRED',
  'SESSION_DELETED',
  'SESSION_INVALID',
  'SESSION_MISSING',
  'AUTH_TOKEN_EXPIRED',
  'AUTH_TOKEN_INVALID',
  'ACCOUNT_DISABLED',
  'TOKEN_REVOKED',
])

const isSessionCode = (code: unknown): code is SessionLostCode =>
  typeof code === 'string' && SESSION_CODES.has(code)

/** The session is gone (the app's banner or sign-in screen says so; screens need not repeat it). */
export function isSessionLost(error: unknown): boolean {
  return error instanceof TesseraError && error.status === 401 && isSessionCode(error.code)
}

/** The route does not exist on this server (an older server, or a feature not deployed). */
export function isMissingRoute(error: unknown): boolean {
  return error instanceof TesseraError && error.status === 404 && error.code === 'ROUTE_NOT_FOUND'
}

/** What reads a file (the viewer's calls): an account's connection, or a guest's through a link. */
export type Reader = Pick<Tessera, 'files' | 'attributes' | 'annotations' | 'configurations' | 'discussions'>

export class Connection {
  /** The signed-in connection, or null. */
  tessera: Tessera | null = null
  /** A guest's read-only connection through a link (`/#/link/<token>`), or null. */
  guest: TesseraLink | null = null
  /** Set when a call found the session gone; cleared when a new session is taken. */
  lost: SessionLostCode | null = null
  readonly #listeners = new Set<(code: SessionLostCode) => void>()
  readonly #baseUrl: string

  constructor(baseUrl = '') {
    this.#baseUrl = baseUrl
  }

  /** The API's origin: the page's own unless the console was built for another. */
  get url(): string {
    return this.#baseUrl || globalThis.location.origin
  }

  /** The signed-in connection; a 401 when there is none (the app shows the sign-in screen). */
  get signedIn(): Tessera {
    if (this.tessera) return this.tessera
    throw new TesseraError({ status: 401, code: 'SESSION_MISSING', detail: 'Not signed in.' })
  }

  /** Who reads files: the guest's link when the page was opened through one, else the account. */
  get reader(): Reader {
    return this.guest ?? this.signedIn
  }

  onSessionLost(listener: (code: SessionLostCode) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** The fetch the SDK calls with: it notices a lost session in any answer. */
  readonly fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const response = await globalThis.fetch(input, init)
    if (response.status === 401 && this.tessera) {
      const body: unknown = await response
        .clone()
        .json()
        .catch(() => null)
      const code = (body as { code?: unknown } | null)?.code
      if (isSessionCode(code)) this.notice(code)
    }
    return response
  }

  /** Called for every session failure found, also by XHR uploads and the SDK's keep-alive. */
  notice(code: string): void {
    if (!isSessionCode(code) || !this.tessera) return
    // The SDK never reconnects by itself; neither do we: the banner asks.
    this.tessera.stopKeepAlive()
    this.lost = code
    for (const listener of this.#listeners) listener(code)
  }
}

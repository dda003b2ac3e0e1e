// The console's thin HTTP layer. It mirrors the planned surface of the SDK (@tessera/client) so
// that the lead can swap it at merge: header tokens kept in memory (never in storage), problem
// documents turned into ApiError, and one place that notices a lost session.
//
// Every fetch uses `credentials: 'omit'`: the server sets an X-Service-Session cookie on
// POST /account/session, and a browser that stored it would send it beside the headers, which the
// API refuses as AMBIGUOUS_CREDENTIALS. With 'omit' the cookie is neither stored nor sent.

export interface Problem {
  status: number
  code: string
  title?: string
  detail?: string
}

export class ApiError extends Error {
  readonly status: number
  readonly code: string
  readonly retryAfter: number | null
  constructor(problem: Problem, retryAfter: number | null = null) {
    super(problem.detail ?? problem.title ?? problem.code)
    this.status = problem.status
    this.code = problem.code
    this.retryAfter = retryAfter
  }
}

/** The session is gone (the app's banner or sign-in screen says so; screens need not repeat it). */
export function isSessionLost(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401 && SESSION_CODES.has(error.code)
}

/** The route does not exist on this server (an older server, or a feature not deployed). */
export function isMissingRoute(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404 && error.code === 'ROUTE_NOT_FOUND'
}

export interface Tokens {
  auth: string
  session: string | null
}

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

const SESSION_CODES = new Set<string>([
  'SESSION_SUPERSEDED',
  'SESSION_EXPIRED',
  'SESSION_DELETED',
  'SESSION_INVALID',
  'SESSION_MISSING',
  'AUTH_TOKEN_EXPIRED',
  'AUTH_TOKEN_INVALID',
  'ACCOUNT_DISABLED',
])

export interface RequestOptions {
  json?: unknown
  query?: Record<string, string | number | undefined>
  signal?: AbortSignal
  /** Send without tokens (login). */
  anonymous?: boolean
}

export class Http {
  tokens: Tokens | null = null
  /** Set when a call found the session gone; cleared when a new session is taken. */
  lost: SessionLostCode | null = null
  private lostListeners = new Set<(code: SessionLostCode) => void>()

  constructor(readonly baseUrl = '') {}

  onSessionLost(listener: (code: SessionLostCode) => void): () => void {
    this.lostListeners.add(listener)
    return () => this.lostListeners.delete(listener)
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = { ...extra }
    if (this.tokens) {
      headers.authorization = `Bearer ${this.tokens.auth}`
      if (this.tokens.session) headers['x-service-session'] = this.tokens.session
    }
    return headers
  }

  url(path: string, query?: RequestOptions['query']): string {
    const params = new URLSearchParams()
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) params.set(key, String(value))
    }
    const qs = params.toString()
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ''}`
  }

  async fetch(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const extra: Record<string, string> = { accept: 'application/json' }
    let body: string | undefined
    if (options.json !== undefined) {
      extra['content-type'] = 'application/json'
      body = JSON.stringify(options.json)
    }
    const response = await fetch(this.url(path, options.query), {
      method,
      headers: options.anonymous ? extra : this.headers(extra),
      body,
      credentials: 'omit',
      signal: options.signal,
    })
    if (!response.ok && response.status !== 304) throw await this.toError(response)
    return response
  }

  async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.fetch(method, path, options)
    return (await response.json()) as T
  }

  async toError(response: Response): Promise<ApiError> {
    let problem: Problem = { status: response.status, code: `HTTP_${response.status}` }
    try {
      const body = (await response.json()) as Partial<Problem>
      if (typeof body.code === 'string') problem = { ...problem, ...body, status: response.status }
    } catch {
      // Not a problem document (a proxy's page): the status alone has to do.
    }
    const retry = Number(response.headers.get('retry-after'))
    const error = new ApiError(problem, Number.isFinite(retry) && retry > 0 ? retry : null)
    this.notice(error)
    return error
  }

  /** Called for every failed call, also from XHR uploads. */
  notice(error: ApiError): void {
    if (error.status === 401 && SESSION_CODES.has(error.code) && this.tokens) {
      this.lost = error.code as SessionLostCode
      for (const listener of this.lostListeners) listener(error.code as SessionLostCode)
    }
  }
}

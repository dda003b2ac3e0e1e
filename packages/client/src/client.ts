// Tessera.connect: one object per session, holding the tokens and the typed sub-APIs.

import { Admin } from './admin.ts'
import { Discussions } from './discussions.ts'
import { type ProblemCode, problemError, TesseraError } from './errors.ts'
import { type EventsOptions, liveEvents, type StreamItem, type StreamTransport } from './events.ts'
import { Files } from './files.ts'
import { type ApiClient, createApi, credentialsOf, type HttpOptions, type Tokens, unwrap } from './http.ts'
import { Links } from './links.ts'
import { type LiveHandlers, LiveSession } from './live.ts'
import { Annotations, Configurations, SceneAttributes } from './records.ts'
import { SessionKeeper, type SessionOptions, tokenFromCookies } from './session.ts'
import type { Answer } from './types.ts'
import { Webhooks } from './webhook-api.ts'
import type { WebhookEventName } from './webhooks.ts'

/** A test event sent to the account's own stream (`tessera.testEvent`). */
export type TestEvent = Answer<'/events/test', 'post'>['testEvent']

export type Credentials =
  | { username: string; password: string }
  | { authToken: string }
  /** Cookie mode only: a new session for the auth cookie already held (e.g. taking the license back). */
  | { cookies: true }

/** Who logged in, from the login answer (connect with a username and password). */
export interface Account {
  username: string
  email: string
}
export type ConnectOptions = HttpOptions & SessionOptions & Credentials

function cookieLogin(options: HttpOptions): { cookie?: true } {
  return options.cookies ? { cookie: true } : {}
}

async function currentAccount(api: ApiClient): Promise<Account> {
  const { account } = await unwrap(api.GET('/account/me'))
  return { username: account.username, email: account.email }
}

/**
 * Cookie mode on load: whether the cookies hold a working session, asked of a route that answers 200
 * either way, so a signed-out visit logs no failed request. Throws the 401 a session call would have
 * answered. A server without the route (404) is asked by the keep-alive instead, as before.
 */
async function requireCookieSession(api: ApiClient): Promise<void> {
  let state: { signedIn: boolean; reason: string | null }
  try {
    state = await unwrap(api.GET('/account/session/state'))
  } catch (error) {
    if (error instanceof TesseraError && error.code === 'ROUTE_NOT_FOUND') return
    throw error
  }
  if (state.signedIn) return
  const code = (state.reason ?? 'SESSION_MISSING') as ProblemCode
  throw problemError({
    status: 401,
    code,
    detail: 'No working session in this browser.',
    title: 'Unauthorized',
  })
}

/** A step after the keep-alive started: if it fails, no timer is left behind. */
async function whileKept<T>(session: SessionKeeper, step: Promise<T>): Promise<T> {
  try {
    return await step
  } catch (error) {
    session.stop()
    throw error
  }
}

export class Tessera {
  readonly files: Files
  readonly attributes: SceneAttributes
  readonly annotations: Annotations
  /** Replies on annotations, read markers, unread counts. */
  readonly discussions: Discussions
  readonly configurations: Configurations
  readonly webhooks: Webhooks
  /** Share by link: a file's link (owner only). A guest's client is `TesseraLink.open`. */
  readonly links: Links
  /** Administrators only (403 FORBIDDEN for others). */
  readonly admin: Admin

  /** The typed openapi-fetch client, with the tokens attached: for calls the SDK does not wrap. */
  readonly api: ApiClient
  /** Who is signed in: from the login answer, or `GET /account/me` in cookie mode; undefined with an auth token. */
  readonly account: Account | undefined
  private readonly tokens: Tokens
  private readonly session: SessionKeeper
  private readonly transport: StreamTransport

  private constructor(
    api: ApiClient,
    tokens: Tokens,
    session: SessionKeeper,
    options: HttpOptions,
    account: Account | undefined,
  ) {
    this.api = api
    this.account = account
    this.tokens = tokens
    this.session = session
    this.transport = {
      url: options.url,
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      tokens,
      headers: options.headers ?? {},
      credentials: credentialsOf(options),
    }
    this.files = new Files(api, (o) => this.events(o))
    this.attributes = new SceneAttributes(api)
    this.annotations = new Annotations(api)
    this.discussions = new Discussions(api)
    this.configurations = new Configurations(api)
    this.webhooks = new Webhooks(api)
    this.links = new Links(api)
    this.admin = new Admin(api)
  }

  /**
   * Logs in (or takes an auth token, e.g. one minted for single sign-on), opens a session (takes a
   * license: NoLicenseAvailableError when none is free) and keeps it alive until `close()`.
   * Opening a session supersedes the account's previous one. With `session: false`, only the auth
   * token: no license, nothing superseded; `close()` and `logout()` then have nothing to end.
   */
  static async connect(options: ConnectOptions): Promise<Tessera> {
    const tokens: Tokens = { auth: '', session: '' }
    const api = createApi(options, tokens)
    let account: Account | undefined
    if ('authToken' in options) tokens.auth = options.authToken
    else if ('username' in options) {
      const body = { username: options.username, password: options.password }
      const login = await unwrap(api.POST('/account/login/', { body: { ...body, ...cookieLogin(options) } }))
      // Cookie mode: the token is an HttpOnly cookie, out of reach (and out of the answer).
      if (!options.cookies) tokens.auth = tokenFromCookies(login.cookies)
      account = { username: login.username, email: login.email }
    } else if (!options.cookies) throw new TypeError('connect: give username and password, or authToken')
    const session = new SessionKeeper(api, tokens, options)
    if (options.session !== false) await session.open()
    if (options.cookies && !account) account = await whileKept(session, currentAccount(api))
    return new Tessera(api, tokens, session, options, account)
  }

  /**
   * Cookie mode (browsers): the session the cookies already hold, e.g. after a page reload. Renews it
   * (`PUT /account/session`) and learns who it is (`GET /account/me`); throws a TesseraError (401)
   * when there is none or it no longer works, so the page shows its sign-in. Never opens a session:
   * that would supersede one in another tab. It asks `GET /account/session/state` first, which
   * answers 200 either way: a signed-out visit makes no failing request.
   */
  static async resume(options: HttpOptions & SessionOptions & { cookies: true }): Promise<Tessera> {
    const tokens: Tokens = { auth: '', session: '' }
    const api = createApi(options, tokens)
    await requireCookieSession(api)
    const session = new SessionKeeper(api, tokens, options)
    await session.resume()
    return new Tessera(api, tokens, session, options, await whileKept(session, currentAccount(api)))
  }

  /**
   * The account's events as they commit (`GET /events/stream`): what its webhooks would receive,
   * typed, in order. A dropped connection is reopened with Last-Event-ID, so nothing is missed;
   * a `reset` item says the given `lastEventId` was unknown. Ends on `signal` or `break`; a refusal
   * (bad filter, 401, 429 too many streams) throws a TesseraError.
   *
   *     for await (const item of tessera.events({ events: ['file_optimized'] })) { … }
   */
  events(options: EventsOptions = {}): AsyncGenerator<StreamItem> {
    return liveEvents(this.transport, options)
  }

  /**
   * Sends the contract's sample of `event` to this account's own event stream (`POST /events/test`):
   * every open `events()` of the account (and `tessera listen`) receives it; no webhook does. Answers
   * its `_id` (the stream's id) and the envelope `uuid` it carries.
   */
  async testEvent(event: WebhookEventName): Promise<TestEvent> {
    return (await unwrap(this.api.POST('/events/test', { body: { event } }))).testEvent
  }

  /**
   * Joins the live session on a file (docs/live.md): presence, cameras, selections, follow and
   * change notices, to `handlers`. Header tokens go in the first message; in cookie mode the
   * browser's cookies authenticate. Reconnects by itself (resuming the same participant id) until
   * `close()` or a final refusal (`ended`).
   */
  live(
    fileId: string,
    handlers: Partial<LiveHandlers>,
    options: { WebSocket?: typeof WebSocket } = {},
  ): LiveSession {
    // Read at each connection: tokens renewed meanwhile are the ones sent.
    const hello = () => (this.tokens.auth ? { token: this.tokens.auth, session: this.tokens.session } : {})
    return new LiveSession({ url: this.transport.url, fileId, hello, ...options }, handlers)
  }

  /** The auth token (who you are); valid for TESSERA_AUTH_TOKEN_TTL after login. Empty in cookie mode. */
  get authToken(): string {
    return this.tokens.auth
  }

  /** The session token (your license). */
  get sessionToken(): string {
    return this.tokens.session
  }

  /** When the session expires unless kept alive (the keep-alive timer renews it at half its TTL). */
  get expiresAt(): Date | undefined {
    return this.session.expiresAt
  }

  /**
   * True when opening this session took over a valid session of the same account (another tab,
   * device or script), which is signed out now: worth telling the user.
   */
  get supersededSession(): boolean {
    return this.session.supersededOther
  }

  /** Why the session stopped working (superseded, expired, …), once a keep-alive found out. */
  get sessionLost(): TesseraError | undefined {
    return this.session.lost
  }

  /** Renews the session now. */
  keepAlive(): Promise<Date> {
    return this.session.keepAlive()
  }

  /**
   * Signs out: stops the keep-alive and ends the session at once (`POST /account/logout`), so its
   * license is free now rather than after the deletion delay `close()` leaves. For interactive
   * sign-outs; a script that may be restarted within minutes can prefer `close()`.
   */
  logout(): Promise<void> {
    return this.session.logout()
  }

  /**
   * Stops the keep-alive and leaves the session alone: after it was superseded, or before a new
   * connection for the same auth token takes the license back (`Tessera.connect({authToken})`).
   */
  stopKeepAlive(): void {
    this.session.stop()
  }

  /**
   * Stops the keep-alive and deletes the session. The server frees its license at the answered
   * time (`TESSERA_SESSION_DELETE_DELAY` later, default 5 minutes; until then the token still works).
   */
  close(): Promise<Date | undefined> {
    return this.session.close()
  }
}

// Share by link (docs/api.md, "Links"): the owner's calls (`tessera.links`), and `TesseraLink`, a
// read-only client for a guest who holds a link: it opens the link (token and password) for a link
// session, sends it as `x-link-session` on every call, and renews it before it expires.

import { Discussions } from './discussions.ts'
import type { TesseraError } from './errors.ts'
import { Files } from './files.ts'
import { type ApiClient, createApi, type HttpOptions, type Tokens, unwrap } from './http.ts'
import { Annotations, Configurations, SceneAttributes } from './records.ts'
import { unrefTimer } from './session.ts'
import type { Answer, JsonBody } from './types.ts'

export type LinkSettings = Answer<'/file/{id}/link', 'get'>['link']
/** The link and its token: the token is answered only by create and rotate (null in a replay). */
export type CreatedLink = Omit<Answer<'/file/{id}/link', 'post'>, 'success'>
export type LinkInput = JsonBody<'/file/{id}/link', 'post'>
type OpenedLink = Omit<Answer<'/links/open', 'post'>, 'success'>

/** The owner's calls on a file's link (owner only: 403 for editors and viewers, 404 for others). */
export class Links {
  private readonly api: ApiClient

  constructor(api: ApiClient) {
    this.api = api
  }

  /** Makes the file's link (409 LINK_EXISTS when it has one). Keep `token`: it is answered once. */
  async create(fileId: string, input: LinkInput = {}): Promise<CreatedLink> {
    const { success: _, ...created } = await unwrap(
      this.api.POST('/file/{id}/link', { params: { path: { id: fileId } }, body: input }),
    )
    return created
  }

  /** The link's settings, never its token; 404 LINK_NOT_FOUND without a link. */
  async get(fileId: string): Promise<LinkSettings> {
    return (await unwrap(this.api.GET('/file/{id}/link', { params: { path: { id: fileId } } }))).link
  }

  /** A new token (and id) with the same settings; the old token and its link sessions end at once. */
  async rotate(fileId: string): Promise<CreatedLink> {
    const { success: _, ...created } = await unwrap(
      this.api.POST('/file/{id}/link/rotate', { params: { path: { id: fileId } } }),
    )
    return created
  }

  /** Revokes the link: it stops opening and its link sessions end at once. */
  async revoke(fileId: string): Promise<void> {
    await unwrap(this.api.DELETE('/file/{id}/link', { params: { path: { id: fileId } } }))
  }
}

export type LinkOptions = Omit<HttpOptions, 'cookies'> & {
  /** The link's token (the last part of `<origin>/#/link/<token>`). */
  token: string
  password?: string
  /** `false`: renew by hand with `renew()` (default: at half the session's lifetime). */
  keepAlive?: boolean
  /** Called once when a renewal finds the link gone (revoked, rotated, expired, file deleted). */
  onLinkLost?: (error: TesseraError) => void
}

/**
 * A guest's read-only client of one file, through its link: `files.get(fileId)`, `sceneTree`,
 * `downloadOptimized`, `properties`/`propertiesPage`, `search`/`searchAll`, `exportBcf`,
 * `annotations.list`, `configurations.list`, `attributes.page`/`all`. Every
 * write answers 403 LINK_READ_ONLY, other reads 403 LINK_NOT_ALLOWED, other files 404. Holds no
 * license and no account. `close()` stops the renewal timer.
 */
export class TesseraLink {
  readonly api: ApiClient
  readonly files: Files
  readonly annotations: Annotations
  /** Threads readable by everyone (listing and summary); replying throws LINK_READ_ONLY. */
  readonly discussions: Discussions
  readonly configurations: Configurations
  readonly attributes: SceneAttributes
  readonly fileId: string
  readonly allowLivePublicMeetings: boolean
  /** Why the link stopped working, once a renewal found out. */
  lost: TesseraError | undefined
  #session: OpenedLink
  #timer: ReturnType<typeof setTimeout> | undefined
  #closed = false
  readonly #options: LinkOptions
  /** What the request middleware sends as `x-link-session`: the current link session. */
  readonly #holder: { session: string }

  private constructor(api: ApiClient, opened: OpenedLink, options: LinkOptions, holder: { session: string }) {
    this.api = api
    this.#holder = holder
    this.#session = opened
    this.#options = options
    this.fileId = opened.fileId
    this.allowLivePublicMeetings = opened.allowLivePublicMeetings
    this.files = new Files(api)
    this.annotations = new Annotations(api)
    this.discussions = new Discussions(api)
    this.configurations = new Configurations(api)
    this.attributes = new SceneAttributes(api)
  }

  /**
   * Opens a link: 404 LINK_NOT_FOUND (unknown, revoked or rotated), 410 LINK_EXPIRED, 401
   * LINK_PASSWORD_REQUIRED, 403 LINK_PASSWORD_WRONG, 429 TOO_MANY_REQUESTS (as TesseraError).
   */
  static async open(options: LinkOptions): Promise<TesseraLink> {
    // No account tokens: only the link session travels, set below once it exists.
    const tokens: Tokens = { auth: '', session: '' }
    const holder: { session: string } = { session: '' }
    const api = createApi({ ...options, cookies: false }, tokens)
    api.use({
      onRequest({ request }) {
        if (holder.session) request.headers.set('x-link-session', holder.session)
        return request
      },
    })
    const body = { token: options.token, ...(options.password ? { password: options.password } : {}) }
    const { success: _, ...opened } = await unwrap(api.POST('/links/open', { body }))
    holder.session = opened.linkSession
    const link = new TesseraLink(api, opened, options, holder)
    link.#scheduleRenewal()
    return link
  }

  /** The link session (send it as `x-link-session`, e.g. to a live session's `hello`). */
  get linkSession(): string {
    return this.#session.linkSession
  }

  /** When the current link session expires unless renewed. */
  get expiresAt(): Date {
    return new Date(this.#session.expiresAt)
  }

  /** When the link itself stops opening (null: never). */
  get linkExpiresAt(): Date | null {
    return this.#session.linkExpiresAt === null ? null : new Date(this.#session.linkExpiresAt)
  }

  /** A fresh link session now (`GET /links/session`); 401 LINK_SESSION_ENDED once the link is gone. */
  async renew(): Promise<Date> {
    const { success: _, ...fresh } = await unwrap(this.api.GET('/links/session'))
    this.#session = fresh
    this.#holder.session = fresh.linkSession
    this.#scheduleRenewal()
    return this.expiresAt
  }

  /** Stops renewing; the link session simply expires. */
  close(): void {
    this.#closed = true
    clearTimeout(this.#timer)
  }

  #scheduleRenewal(): void {
    clearTimeout(this.#timer)
    if (this.#closed || this.lost || this.#options.keepAlive === false) return
    const delay = Math.max(1_000, (this.expiresAt.getTime() - Date.now()) / 2)
    this.#timer = setTimeout(() => void this.#tick(), delay)
    // As the account session's timer: never keeps a Node process alive by itself.
    unrefTimer(this.#timer)
  }

  async #tick(): Promise<void> {
    try {
      await this.renew()
    } catch (error) {
      const failure = error as TesseraError
      if (failure.status === 401 || failure.status === 404) {
        this.lost = failure
        this.#options.onLinkLost?.(failure)
      } else this.#scheduleRenewal()
    }
  }
}

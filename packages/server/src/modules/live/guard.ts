// Whether each participant may stay (docs/live.md "Connecting"): an account's session and account
// are read again when the row-change feed reports a change to them (platform/db/row-changes.ts:
// sessions superseded, ended or expired, accounts disabled, tokens revoked), file access when the
// outbox reports a share change on the file (hub.ts), and everything every TESSERA_LIVE_RECHECK as a
// net (a deleted file, an expiry by time, a change the feed missed). A guest's link is read again
// when the links module says it ended (onLinkRevoked), and at each net.
import type { AppContext } from '../../platform/context.ts'
import type { RowChangeListener, RowWatch, WatchedTable } from '../../platform/db/index.ts'
import { AppError } from '../../platform/errors.ts'
import { requireFileAccess } from '../files/index.ts'
import { type LinkRevocation, onLinkRevoked } from '../links/index.ts'
import { sessionRefusalNow } from '../sessions/index.ts'
import type { LiveHub } from './hub.ts'
import type { LocalParticipant } from './participant.ts'
import { guestRefusalNow } from './service.ts'

export class LiveGuard implements RowChangeListener {
  readonly watchedTables: readonly WatchedTable[] = ['sessions', 'accounts']
  readonly #ctx: AppContext
  #hub: LiveHub | null = null
  #watch: RowWatch | null = null
  #timer: NodeJS.Timeout | null = null
  #unlinked: (() => Promise<void>) | null = null

  constructor(ctx: AppContext) {
    this.#ctx = ctx
  }

  start(hub: LiveHub): void {
    this.#hub = hub
    const log = this.#ctx.log
    this.#watch ??= this.#ctx.db.watchRows?.(this, (message, err) => log.warn({ err }, message)) ?? null
    this.#unlinked ??= onLinkRevoked(this.#ctx, (revocation) => this.#linkEnded(revocation))
    this.#timer ??= setInterval(() => this.recheck(hub.locals()), this.#ctx.config.liveRecheckMs)
    this.#timer.unref()
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer)
    this.#timer = null
    const watch = this.#watch
    const unlinked = this.#unlinked
    this.#watch = null
    this.#unlinked = null
    await Promise.all([watch?.stop(), unlinked?.()])
  }

  #linkEnded(revocation: LinkRevocation): void {
    const guests = this.#hub?.locals().filter((local) => local.identity.linkId !== null) ?? []
    const { linkId } = revocation
    const hit = linkId === null ? guests : guests.filter((local) => local.identity.linkId === linkId)
    if (hit.length > 0) this.recheck(hit)
  }

  changed(table: WatchedTable, id: string): void {
    const hub = this.#hub
    if (!hub) return
    const hit = hub
      .locals()
      .filter((local) =>
        table === 'sessions' ? local.identity.sessionId === id : local.identity.accountId === id,
      )
    if (hit.length > 0) this.recheck(hit)
  }

  reset(): void {
    if (this.#hub) this.recheck(this.#hub.locals())
  }

  /** Reads again whether each of `participants` may stay; closes those that may not. */
  recheck(participants: LocalParticipant[]): void {
    for (const local of participants) void this.#recheckOne(local)
  }

  async #recheckOne(local: LocalParticipant): Promise<void> {
    try {
      const refusal = await this.#refusalOf(local)
      if (refusal && this.#hub) this.#hub.end(local, refusal.code, refusal.status, refusal.message)
    } catch (err) {
      this.#ctx.log.warn({ err }, 'live sessions: re-checking a participant failed; checked again later')
    }
  }

  async #refusalOf(local: LocalParticipant): Promise<AppError | null> {
    const { accountId, sessionId, issuedAt, linkId } = local.identity
    if (linkId !== null) return guestRefusalNow(this.#ctx, linkId, local.fileId)
    if (accountId === null || sessionId === null) return new AppError('SESSION_MISSING', 'No session.')
    const refusal = await sessionRefusalNow(this.#ctx, { accountId, sessionId, issuedAt })
    if (refusal) return refusal
    try {
      await requireFileAccess(this.#ctx.db.kysely, accountId, local.fileId, 'read')
      return null
    } catch (err) {
      if (err instanceof AppError) return new AppError('NOT_FOUND', 'You can no longer read this file.')
      throw err
    }
  }
}

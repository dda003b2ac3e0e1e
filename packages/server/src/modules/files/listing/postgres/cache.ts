// Listings answered from memory on PostgreSQL. A read of the database costs more here than the rest
// of a listing's request (docs/benchmarks.md, "API": a bare route making the same one query reaches
// 0.3 of a bare route), so each process keeps the pages it answered, filled on first read and
// forgotten when a row they hold may have changed. The database tells every process: the triggers of
// migration 0034 NOTIFY on each insert, update or delete of a files row (by owner) or a file_shares
// row (by account), migration 0016's on each change of an accounts row, all through the process's one
// LISTEN connection (platform/db/row-changes.ts).
//
// The consistency rule (docs/architecture.md, "Listings from memory"):
// - A writer reads its own write: a request that changed files or shares answers only once every
//   process's feed has applied the change (awaitRowChangesSeen after its commit, row-sync.ts).
// - Any other reader sees a change once its notification has reached the process (measured:
//   docs/benchmarks.md); a hit is used only after the notifications already in the socket are
//   applied (settle), so a change committed before the request came in is seen whenever its NOTIFY
//   has arrived by then.
// - While the LISTEN connection is down nothing is answered from memory, and when it comes back
//   everything is dropped (changes may have been missed). An entry older than MAX_AGE_MS is read
//   again: a safety net for a connection cut without either side noticing, not the mechanism.
// Bounded: at most MAX_ENTRIES pages and MAX_BYTES of them (estimated from their JSON), least
// recently used first out.
import type { AppContext } from '../../../../platform/context.ts'
import type { RowChangeListener, RowWatch, WatchedTable } from '../../../../platform/db/index.ts'

const MAX_ENTRIES = 10_000
const MAX_BYTES = 64 * 1024 * 1024
const MAX_AGE_MS = 30_000
/** Accounts whose last change is remembered (for reads in flight); past it everything is dropped. */
const MAX_CHANGED_ACCOUNTS = 50_000
/** What an entry costs beyond its content: the key, the map slots, the tag sets. */
const ENTRY_OVERHEAD_BYTES = 256

/** What a read gives the cache to keep. */
export interface Readout<V> {
  value: V
  /**
   * The accounts whose changes invalidate it: the lister, and the owner of every file it holds (a
   * files row is reported by its owner, a file_shares row by its account); null: not to be kept.
   */
  accounts: readonly string[] | null
  /** Its estimated size. */
  bytes: number
}

interface Entry {
  value: unknown
  accounts: readonly string[]
  bytes: number
  readAt: number
}

export interface ListingCacheStats {
  hits: number
  misses: number
  /** Pages dropped because a row they hold changed. */
  invalidations: number
  /** Everything dropped: the feed went down or came back, or an accounts row changed. */
  resets: number
  /** Pages dropped for room. */
  evictions: number
  entries: number
  bytes: number
}

export class ListingCache implements RowChangeListener {
  /** Tables of this module (files, file_shares) and of accounts, whose e-mails the views show. */
  readonly watchedTables: readonly WatchedTable[] = ['files', 'file_shares', 'accounts']
  readonly stats: ListingCacheStats = {
    hits: 0,
    misses: 0,
    invalidations: 0,
    resets: 0,
    evictions: 0,
    entries: 0,
    bytes: 0,
  }
  /** In use order: the first is the least recently used. */
  readonly #entries = new Map<string, Entry>()
  readonly #keysByAccount = new Map<string, Set<string>>()
  /** A clock that moves on every change heard; a read keeps its page only if nothing it holds moved. */
  #clock = 0
  readonly #changedAt = new Map<string, number>()
  #resetAt = 0
  #watch: RowWatch | null = null

  start(ctx: AppContext): void {
    this.#watch = ctx.db.watchRows?.(this, (message, err) => ctx.log.warn({ err }, message)) ?? null
  }

  async stop(): Promise<void> {
    const watch = this.#watch
    this.#watch = null
    this.reset()
    await watch?.stop()
  }

  changed(table: WatchedTable, id: string): void {
    // An e-mail shows in every page holding a file its account owns or uploaded: rare enough
    // (an address change, a disable) to drop everything.
    if (table === 'accounts') {
      this.reset()
      return
    }
    this.#changedAt.set(id, ++this.#clock)
    if (this.#changedAt.size > MAX_CHANGED_ACCOUNTS) {
      this.reset()
      return
    }
    const keys = this.#keysByAccount.get(id)
    if (keys === undefined) return
    for (const key of keys) {
      if (this.#drop(key)) this.stats.invalidations++
    }
  }

  reset(): void {
    this.#resetAt = ++this.#clock
    this.#changedAt.clear()
    this.#entries.clear()
    this.#keysByAccount.clear()
    this.stats.resets++
    this.stats.entries = 0
    this.stats.bytes = 0
  }

  /** The page under `key`, from memory when the feed vouches for it, else read (and kept). */
  async page<V>(key: string, now: number, read: () => Promise<Readout<V>>): Promise<V> {
    // covered() first: it may drop everything before the lookup.
    const covered = this.#watch?.covered() ?? false
    if (covered) {
      const hit = this.#entries.get(key)
      if (hit !== undefined && now - hit.readAt < MAX_AGE_MS && (await this.#stillHeld(key, hit))) {
        this.stats.hits++
        return hit.value as V
      }
    }
    this.stats.misses++
    const startedAt = this.#clock
    const readout = await read()
    // Kept only if the feed covered the whole read and nothing the page holds changed meanwhile.
    const { value, accounts, bytes } = readout
    if (accounts === null) return value
    if (covered && (this.#watch?.covered() ?? false) && this.#unchangedSince(startedAt, accounts)) {
      this.#keep(key, { value, accounts, bytes, readAt: now })
    }
    return value
  }

  /** After the notifications that already reached this process are applied: is the entry still kept? */
  async #stillHeld(key: string, hit: Entry): Promise<boolean> {
    await this.#watch?.settle?.()
    if (this.#entries.get(key) !== hit || !(this.#watch?.covered() ?? false)) return false
    // In use order: a hit moves to the end.
    this.#entries.delete(key)
    this.#entries.set(key, hit)
    return true
  }

  #unchangedSince(startedAt: number, accounts: readonly string[]): boolean {
    if (this.#resetAt > startedAt) return false
    return accounts.every((account) => (this.#changedAt.get(account) ?? 0) <= startedAt)
  }

  #keep(key: string, entry: Entry): void {
    this.#drop(key)
    const bytes = entry.bytes + ENTRY_OVERHEAD_BYTES
    if (bytes > MAX_BYTES / 16) return // one page may not take a sixteenth of the room
    while (this.#entries.size >= MAX_ENTRIES || this.stats.bytes + bytes > MAX_BYTES) {
      const oldest = this.#entries.keys().next()
      if (oldest.done) break
      this.#drop(oldest.value)
      this.stats.evictions++
    }
    this.#entries.set(key, { ...entry, bytes })
    for (const account of entry.accounts) {
      let keys = this.#keysByAccount.get(account)
      if (keys === undefined) {
        keys = new Set()
        this.#keysByAccount.set(account, keys)
      }
      keys.add(key)
    }
    this.stats.entries = this.#entries.size
    this.stats.bytes += bytes
  }

  /** Forgets the page; whether it was kept. */
  #drop(key: string): boolean {
    const entry = this.#entries.get(key)
    if (entry === undefined) return false
    this.#entries.delete(key)
    for (const account of entry.accounts) {
      const keys = this.#keysByAccount.get(account)
      keys?.delete(key)
      if (keys?.size === 0) this.#keysByAccount.delete(account)
    }
    this.stats.entries = this.#entries.size
    this.stats.bytes -= entry.bytes
    return true
  }
}

// Waiting for SQLite's write lock without blocking the event loop.
//
// better-sqlite3 runs on the calling thread, so a `BEGIN IMMEDIATE` that finds another process
// holding the write lock waits inside SQLite's busy handler, and the whole event loop waits with it:
// the handler sleeps 1, 2, 5, 10 … up to 100 ms between tries, and every request of the process
// (reads included) stalls meanwhile. Here the BEGIN is tried with the busy timeout off, and a busy
// answer is retried after a timer (1 ms doubling to 4 ms) until the connection's usual busy
// timeout has passed, so the process serves other requests while it waits and takes the lock
// within a few milliseconds of its release.
import type SqliteDatabase from 'better-sqlite3'

/** The connection's busy timeout (open.ts): how long any statement waits for a lock. */
export const BUSY_TIMEOUT_MS = 5000

const FIRST_PAUSE_MS = 1
const LONGEST_PAUSE_MS = 4

function isBusy(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === 'SQLITE_BUSY'
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * `begin immediate` on `database`, waiting for another process's write lock off the event loop;
 * after `timeoutMs` it fails with SQLITE_BUSY, as a statement waiting on the busy timeout does.
 */
export function lockWaitingBegin(database: SqliteDatabase.Database, timeoutMs = BUSY_TIMEOUT_MS) {
  const begin = database.prepare('begin immediate')
  const noWait = database.prepare('pragma busy_timeout = 0')
  const wait = database.prepare(`pragma busy_timeout = ${BUSY_TIMEOUT_MS}`)
  // SQLite sets the timeout of `pragma busy_timeout = N` while compiling the statement, and
  // compiles a pragma's statement anew before every run but its first: so preparing sets the
  // timeout, the first run does nothing, and every later run sets it. Both first runs go here,
  // leaving the timeout the last prepare set (BUSY_TIMEOUT_MS); without them the connection's first
  // `begin` would wait for another process's lock in SQLite's busy handler, on the event loop.
  noWait.run()
  wait.run()
  /** null once the transaction is open; the SQLITE_BUSY error while another process writes. */
  const tryBegin = (): Error | null => {
    noWait.run()
    try {
      begin.run()
      return null
    } catch (error) {
      if (isBusy(error)) return error as Error
      throw error
    } finally {
      wait.run()
    }
  }
  return async (): Promise<void> => {
    if (tryBegin() === null) return
    const deadline = Date.now() + timeoutMs
    for (let ms = FIRST_PAUSE_MS; ; ms = Math.min(ms * 2, LONGEST_PAUSE_MS)) {
      await pause(ms)
      const busy = tryBegin()
      if (busy === null) return
      if (Date.now() >= deadline) throw busy
    }
  }
}

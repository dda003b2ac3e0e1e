// What every background worker here shares (webhook deliveries, conversions): waking workers when
// work becomes due — directly in this process, through the database's JobStore across processes
// (NOTIFY on PostgreSQL) — the alarm their loops sleep on, and the lease a claimed item is held under.
import type { Logger } from 'pino'
import type { Db, Executor } from './db/index.ts'

/** Something that claims work from one database and can be told to look now. */
export interface Waker {
  readonly db: Db
  wake(): void
}

/**
 * A named kind of work that workers wait for. `wake` tells other processes through the database's
 * JobStore (PostgreSQL: a NOTIFY, sent at commit when inside a transaction) and wakes this process's
 * workers at once. SQLite has one connection: a woken worker's claim queues behind the transaction
 * and so sees its outcome. On PostgreSQL an early claim finds nothing and the NOTIFY at commit wakes
 * the worker again.
 */
export class WakeChannel {
  readonly #local = new Set<Waker>()

  readonly name: string

  constructor(name: string) {
    this.name = name
    if (!/^[a-z_]+$/.test(name)) throw new Error(`bad channel name ${name}`)
  }

  /** In-process workers register so that new work wakes them directly; answers the unregister. */
  register(worker: Waker): () => void {
    this.#local.add(worker)
    return () => this.#local.delete(worker)
  }

  async wake(db: Db, executor: Executor): Promise<void> {
    await db.jobStore.notify(executor, this.name)
    for (const worker of this.#local) if (worker.db === db) worker.wake()
  }
}

/** Wakes workers of the `jobs` table (conversions): enqueueJob (job-queue.ts) wakes it in its transaction. */
export const jobsChannel = new WakeChannel('tessera_jobs')

/**
 * PostgreSQL: calls `onNotify` at each NOTIFY on `channel` and whenever the database's LISTEN
 * connection (re)starts listening (work may have been queued meanwhile). Workers also poll slowly,
 * so a lost notification only delays work, never loses it. Answers the unsubscribe; SQLite: nothing.
 */
export function wakeOnNotify(db: Db, channel: string, onNotify: () => void, log: Logger): () => void {
  if (!db.notifications) return () => {}
  return db.notifications.subscribe(channel, {
    notify: onNotify,
    up: onNotify,
    down(err) {
      if (err) log.warn({ err, channel }, 'LISTEN connection lost; polling only until it is back')
    },
  })
}

/**
 * What a worker's loop sleeps on between rounds (delivery/worker.ts, modules/conversion/worker.ts):
 * rung by its `wake()`, it ends the sleep; rung while the worker is awake (a round runs), it makes the
 * next sleep end at once, so no wake-up is lost between a round's look at the queue and its sleep.
 */
export class Alarm {
  #rung = false
  #wakeUp: (() => void) | null = null

  ring(): void {
    this.#rung = true
    this.#wakeUp?.()
  }

  /** A round starts: rings from now on are for the next one. */
  reset(): void {
    this.#rung = false
  }

  /** Sleeps until rung (answers true) or until `ms` ran out (false). */
  sleep(ms: number): Promise<boolean> {
    if (this.#rung) return Promise.resolve(true)
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false), Math.max(0, ms))
      const done = (rung: boolean): void => {
        clearTimeout(timer)
        this.#wakeUp = null
        resolve(rung)
      }
      this.#wakeUp = () => done(true)
    })
  }
}

/**
 * How long a claim holds an item: the work's time budget plus a margin for recording the result,
 * then another worker may take over. The margin scales with the budget (2 s to 30 s) so that a short
 * budget also means a quick takeover after a crash, while slow work is never run twice at once.
 */
export function leaseMs(budgetMs: number): number {
  return budgetMs + Math.min(30_000, Math.max(2_000, budgetMs))
}

/**
 * Makes `worker` wake when work is queued on `channel`: directly from this process, and on
 * PostgreSQL through the database's LISTEN connection. Answers the function that undoes both.
 */
export function listenForWork(
  worker: Waker,
  channel: WakeChannel,
  options: { log: Logger },
): () => Promise<void> {
  const unregister = channel.register(worker)
  const unsubscribe = wakeOnNotify(worker.db, channel.name, () => worker.wake(), options.log)
  return async () => {
    unregister()
    unsubscribe()
  }
}

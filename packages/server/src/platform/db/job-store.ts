// What the job queue (../job-queue.ts) and the wake channels of every worker (../jobs.ts) do
// differently per database: one implementation each, chosen when the database opens (open.ts), as
// Kysely picks its dialect's driver and compiler. The queue's statements themselves are the same.
import { type SelectQueryBuilder, sql } from 'kysely'
import type { Executor } from './types.ts'

export interface JobStore {
  /**
   * The claimed row, locked for the rest of the claim's transaction, so that two workers never
   * lease it both.
   */
  lockForClaim<DB, TB extends keyof DB, O>(
    query: SelectQueryBuilder<DB, TB, O>,
  ): SelectQueryBuilder<DB, TB, O>
  /**
   * Tells the workers of OTHER processes that wait on `channel` that work is due: at commit when
   * `executor` is a transaction, at once otherwise. (This process's workers are woken directly.)
   */
  notify(executor: Executor, channel: string): Promise<void>
  /**
   * Whether `notify` reaches other processes. When it does not, processes that share the database
   * relay wake-ups themselves (`serve --processes`: cli/cluster.ts over IPC), or wait for the poll.
   */
  readonly notifiesOtherProcesses: boolean
}

/** SQLite: one writer per database file, and no notifications between processes. */
export const sqliteJobStore: JobStore = {
  // The claim runs in an IMMEDIATE transaction, which holds the database's single write lock.
  lockForClaim: (query) => query,
  notify: async () => {},
  notifiesOtherProcesses: false,
}

/** PostgreSQL: row locks, and NOTIFY (sent at commit) to every LISTENing process. */
export const pgJobStore: JobStore = {
  lockForClaim: (query) => query.forUpdate(),
  async notify(executor, channel) {
    await sql`select pg_notify(${channel}, '')`.execute(executor)
  },
  notifiesOtherProcesses: true,
}

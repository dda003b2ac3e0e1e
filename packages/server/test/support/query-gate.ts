// Holds one of the app's queries back, to put two things in a chosen order: the next query whose
// SQL matches is started only once the test releases it (or `ms` after the gate was set). Queries
// run inside a transaction go through the transaction's own Kysely instance and are never held.
import type { Kysely } from 'kysely'
import type { Database } from '../../src/platform/db/schema.ts'

export interface QueryGate {
  /** Resolves when a matching query arrived (and is being held); rejects if none did within `ms`. */
  reached: Promise<void>
  /** Lets the held query run. */
  release(): void
  /** Puts the original executeQuery back. */
  restore(): void
}

export function holdNextQuery(kysely: Kysely<Database>, sql: RegExp, ms: number): QueryGate {
  const original = kysely.executeQuery.bind(kysely)
  let reach = () => {}
  // A test waiting for a query that never comes fails after `ms` instead of at the suite's timeout.
  const reached = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no query matching ${sql} within ${ms} ms`)), ms)
    reach = () => {
      clearTimeout(timer)
      resolve()
    }
  })
  // Handled here too: a test that never awaits it does not die of an unhandled rejection.
  reached.catch(() => {})
  let release = () => {}
  // Released by the test, or by itself after `ms`.
  const released = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    release = () => {
      clearTimeout(timer)
      resolve()
    }
  })
  let armed = true
  const held: Kysely<Database>['executeQuery'] = async (query, queryId) => {
    const text = 'sql' in query ? query.sql : query.compile().sql
    if (armed && sql.test(text)) {
      armed = false
      reach()
      await released
    }
    return original(query, queryId)
  }
  Object.defineProperty(kysely, 'executeQuery', { value: held, configurable: true, writable: true })
  return {
    reached,
    release,
    restore: () => {
      Reflect.deleteProperty(kysely, 'executeQuery')
    },
  }
}

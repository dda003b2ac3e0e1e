// The process registry (`workers` table): every worker that leases jobs records its ID (the
// `leased_by` of its jobs), process ID, host and a heartbeat. A worker is known dead when it runs
// on this host and its process is gone, or when its heartbeat stopped; its leases are then taken
// back at once instead of after the lease (~10 minutes for a conversion). Dead workers' temp files
// are recognised the same way, by the process ID in their names (docs/operations.md, crashes).

import { hostname } from 'node:os'
import type { Executor } from './db/index.ts'
import { pruneIdempotencyKeys } from './idempotency.ts'

/** How often a live worker writes its heartbeat. */
const HEARTBEAT_MS = 2_000
const PRUNE_EVERY_TICKS = 30
/** A heartbeat this old means the worker is gone (several missed beats: a busy loop is not death). */
const DEAD_AFTER_MS = 15_000

const HOST = hostname()

const HOST_TAG = HOST.replace(/[^a-zA-Z0-9]/g, '').slice(0, 32) || 'host'

/** This process in temp file names: `<host>-<pid>-`, so a sweep can tell whose they are. */
export const TEMP_OWNER = `${HOST_TAG}-${process.pid}-`

/**
 * May the temp entry `name` be removed? When it names a process of this host (TEMP_OWNER), yes
 * once that process is gone; otherwise (another host, or an older unnamed entry) only once it is
 * older than `maxAgeMs`, which no live writer lets happen (uploads and conversions are bounded).
 */
export function abandonedTemp(name: string, ageMs: number, maxAgeMs: number): boolean {
  const owner = /^([a-zA-Z0-9]+)-(\d+)-/.exec(name)
  if (owner?.[1] === HOST_TAG) return !processAlive(Number(owner[2]))
  return ageMs > maxAgeMs
}

/** Is a process of this host with this ID running? (Signal 0 only checks.) */
function processAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

async function beat(db: Executor, id: string, now = Date.now()): Promise<void> {
  const updated = await db
    .updateTable('workers')
    .set({ heartbeat_at: now })
    .where('id', '=', id)
    .executeTakeFirst()
  if (Number(updated.numUpdatedRows) > 0) return
  await db
    .insertInto('workers')
    .values({ id, pid: process.pid, host: HOST, started_at: now, heartbeat_at: now })
    .execute()
}

async function forgetWorker(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('workers').where('id', '=', id).execute()
}

/**
 * Registers worker `id` and keeps its heartbeat until the answered function is called (which
 * also removes the row: a worker that stops cleanly has released its leases already).
 */
export function keepAlive(db: Executor, id: string, onError: (err: unknown) => void): () => Promise<void> {
  let stopped = false
  let ticks = 0
  const tick = (): void => {
    if (stopped) return
    beat(db, id).catch(onError)
    // The heartbeat is the periodic loop every worker process has: it also removes expired
    // Idempotency-Keys, one bounded batch about once a minute (and one at start).
    if (ticks++ % PRUNE_EVERY_TICKS === 0) pruneIdempotencyKeys(db).catch(onError)
  }
  tick()
  const timer = setInterval(tick, HEARTBEAT_MS)
  timer.unref()
  return async () => {
    stopped = true
    clearInterval(timer)
    await forgetWorker(db, id).catch(onError)
  }
}

/** Registered workers that are known dead (never `self`). */
async function deadWorkers(db: Executor, self: string, now = Date.now()): Promise<string[]> {
  const rows = await db.selectFrom('workers').select(['id', 'pid', 'host', 'heartbeat_at']).execute()
  return rows
    .filter((row) => row.id !== self)
    .filter(
      (row) =>
        Number(row.heartbeat_at) < now - DEAD_AFTER_MS || (row.host === HOST && !processAlive(row.pid)),
    )
    .map((row) => row.id)
}

/**
 * Takes back the jobs leased by dead workers: their leases end now, so the next claim takes them
 * (with the attempt they used counted, as after a lease that ran out), and their rows go.
 * Answers how many jobs were released.
 */
export async function releaseDeadWorkers(db: Executor, self: string, now = Date.now()): Promise<number> {
  const dead = await deadWorkers(db, self, now)
  if (dead.length === 0) return 0
  const released = await db
    .updateTable('jobs')
    .set({ lease_until: now - 1 })
    .where('state', '=', 'running')
    .where('leased_by', 'in', dead)
    .executeTakeFirst()
  await db.deleteFrom('workers').where('id', 'in', dead).execute()
  return Number(released.numUpdatedRows)
}

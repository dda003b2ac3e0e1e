// The Idempotency-Key store (docs/api.md, "Idempotent requests"): one row per (account, key) that
// the first request reserves, then completes with its answer. A repeat with the same request
// answers that answer again; another request under the same key is refused. Two processes that
// reserve one key at once agree through the primary key (INSERT … ON CONFLICT DO NOTHING): on
// PostgreSQL the loser's insert waits for the winner's row and then does nothing; on SQLite the
// single writer already orders them.
import type { Executor, Tx } from './db/index.ts'
import { AppError } from './errors.ts'

/**
 * A reservation this old whose request never answered is taken over by the next request with the
 * key: its process crashed (or lost its database) between the reservation and the answer.
 * Every idempotent route reserves the key once its body has been read, so this only has to cover
 * the route's own work (a transaction), not a slow client's upload.
 */
export const RESERVATION_TAKEOVER_MS = 60_000
/** Expired keys removed per call of `pruneIdempotencyKeys`. */
const PRUNE_BATCH = 500
const KEY_PATTERN = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/
const MAX_KEY_LENGTH = 255

export interface IdempotencyLimits {
  ttlMs: number
  maxKeysPerAccount: number
}

/**
 * What a create calls inside its own transaction, last, with what it is about to answer: the
 * route's Idempotency-Key answer is stored there (idempotent-routes.ts `answerInCommit`), so the
 * record, its event and the answer commit together or not at all. Absent when there is no key.
 */
export type InCommit<T> = (tx: Tx, created: T) => Promise<void>

/** What the store says about a request carrying a key. */
export type Reservation =
  | { kind: 'reserved' }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'reused' }
  | { kind: 'in-use' }

/** The key of the `Idempotency-Key` header, checked; undefined when there is none. */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined
  const key = Array.isArray(header) ? header.join(',') : header
  if (key.length > MAX_KEY_LENGTH || !KEY_PATTERN.test(key)) {
    throw new AppError(
      'INVALID_IDEMPOTENCY_KEY',
      `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} printable ASCII characters (a UUID is a good choice).`,
    )
  }
  return key
}

/**
 * Reserves `key` of `accountId` for a request whose fingerprint is `requestHash`, or answers what
 * an earlier request with the key left: its answer (same request), `reused` (another request) or
 * `in-use` (it still runs).
 */
export async function reserveIdempotencyKey(
  db: Executor,
  limits: IdempotencyLimits,
  input: { accountId: string; key: string; requestHash: string },
  now = Date.now(),
): Promise<Reservation> {
  const row = { account_id: input.accountId, key: input.key, request_hash: input.requestHash }
  // An expired key is as good as absent: it goes before the insert so the insert may win.
  await db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', input.accountId)
    .where('key', '=', input.key)
    .where('expires_at', '<=', now)
    .execute()
  const inserted = await db
    .insertInto('idempotency_keys')
    .values({
      ...row,
      status: null,
      body: null,
      created_at: now,
      locked_at: now,
      expires_at: now + limits.ttlMs,
    })
    .onConflict((conflict) => conflict.columns(['account_id', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst()
  if (inserted) {
    await evictOldest(db, input.accountId, limits.maxKeysPerAccount)
    return { kind: 'reserved' }
  }
  return answerOfExisting(db, input, now)
}

async function answerOfExisting(
  db: Executor,
  input: { accountId: string; key: string; requestHash: string },
  now: number,
): Promise<Reservation> {
  const existing = await db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'status', 'body'])
    .where('account_id', '=', input.accountId)
    .where('key', '=', input.key)
    .executeTakeFirst()
  // Gone between the insert and this read (released after a 5xx, or evicted): the caller retries.
  if (!existing) return { kind: 'in-use' }
  if (existing.request_hash !== input.requestHash) return { kind: 'reused' }
  if (existing.status !== null && existing.body !== null) {
    return { kind: 'replay', status: Number(existing.status), body: existing.body }
  }
  // Still running, unless its reservation is stale: then this request takes it over (one winner).
  const taken = await db
    .updateTable('idempotency_keys')
    .set({ locked_at: now })
    .where('account_id', '=', input.accountId)
    .where('key', '=', input.key)
    .where('status', 'is', null)
    .where('locked_at', '<=', now - RESERVATION_TAKEOVER_MS)
    .executeTakeFirst()
  return Number(taken.numUpdatedRows) > 0 ? { kind: 'reserved' } : { kind: 'in-use' }
}

/** Past `max` keys, the account's oldest answered ones go (a running reservation stays). */
async function evictOldest(db: Executor, accountId: string, max: number): Promise<void> {
  const beyond = await db
    .selectFrom('idempotency_keys')
    .select(['key'])
    .where('account_id', '=', accountId)
    .where('status', 'is not', null)
    .orderBy('created_at', 'desc')
    .orderBy('key', 'desc')
    .offset(max)
    .limit(100)
    .execute()
  if (beyond.length === 0) return
  await db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', accountId)
    .where(
      'key',
      'in',
      beyond.map((row) => row.key),
    )
    .execute()
}

/** Stores the answer of the request that reserved the key (`tx`: the change's own transaction). */
export async function completeIdempotencyKey(
  db: Executor,
  input: { accountId: string; key: string; status: number; body: string },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status: input.status, body: input.body })
    .where('account_id', '=', input.accountId)
    .where('key', '=', input.key)
    .execute()
}

/** Frees a reservation whose request failed on our side (5xx): a retry runs it again. */
export async function releaseIdempotencyKey(
  db: Executor,
  input: { accountId: string; key: string },
): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', input.accountId)
    .where('key', '=', input.key)
    .where('status', 'is', null)
    .execute()
}

/** Removes about PRUNE_BATCH expired keys (more only on ties of expiry); answers how many. */
export async function pruneIdempotencyKeys(db: Executor, now = Date.now()): Promise<number> {
  // Neither dialect has DELETE … LIMIT: the batch ends at the expiry of its last row instead.
  const last = await db
    .selectFrom('idempotency_keys')
    .select(['expires_at'])
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .offset(PRUNE_BATCH - 1)
    .limit(1)
    .executeTakeFirst()
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('expires_at', '<=', last ? Number(last.expires_at) : now)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

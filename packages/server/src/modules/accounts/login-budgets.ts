// Failed-login budgets, counted in the database (every process shares them). Each attempt is
// reserved under every budget it spends BEFORE its password is checked, atomically, so a burst of
// concurrent logins never runs more argon2 checks than the budgets allow; the reservation is the
// record of a failure, and a successful login gives it back. Budgets, per TESSERA_LOGIN_WINDOW, in
// multiples of TESSERA_LOGIN_MAX_FAILURES (L):
// - an account that exists: L per (account, client), 10 L per account from any clients (spreading
//   a guessing run over many addresses does not multiply it). Keyed by the account's ID, not by what
//   was typed: its username and its e-mail (either signs in) spend the same budgets, so alternating
//   them does not double the guesses;
// - names that match no account: no budget of their own (a made-up name never touches a real
//   account's budget, and leaves no row per name); instead the same two budgets per one of
//   UNKNOWN_NAME_BUCKETS buckets, chosen by the name's hash: L per (bucket, client), 10 L per bucket.
//   Rows stay bounded, and a made-up name is throttled like a real one (the 429 does not tell
//   which names exist);
// - 10 L per client, all usernames together.
// The client is request.ip (the peer, or with TESSERA_TRUST_PROXY the address the proxy reports);
// an IPv6 client counts by its /64, which one host usually holds whole.
import { createHash } from 'node:crypto'
import { isIPv6 } from 'node:net'
import type { AppContext } from '../../platform/context.ts'
import { AppError } from '../../platform/errors.ts'
import { type RateLimitState, rateLimitRefusal } from '../../platform/rate-limit-headers.ts'
import * as repo from './repository.ts'

/** Shared budgets of unknown usernames: bounds their rows whatever names are tried. */
export const UNKNOWN_NAME_BUCKETS = 256
/** Expired counters are deleted every this many reservations of a process. */
const PRUNE_EVERY = 200

export interface Budget {
  key: string
  /** Its name in the RateLimit fields of a refusal (docs/api.md, "Rate limits"). */
  policy: 'login-user' | 'login-account' | 'login-ip'
  /** In multiples of TESSERA_LOGIN_MAX_FAILURES. */
  limit: number
}

/** The budget key of a client address: IPv4 as is (also IPv4-mapped IPv6), IPv6 by its /64. */
export function clientKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)
  if (mapped?.[1]) return mapped[1]
  if (!isIPv6(ip)) return ip
  const [head = '', tail = ''] = ip.toLowerCase().split('::')
  const left = head === '' ? [] : head.split(':')
  const right = tail === '' ? [] : tail.split(':')
  const groups = ip.includes('::')
    ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
    : left
  return `${groups.slice(0, 4).join(':')}::/64`
}

function unknownBucket(username: string): number {
  return createHash('sha256').update(username).digest().readUInt32BE(0) % UNKNOWN_NAME_BUCKETS
}

/**
 * The budgets an attempt from `ip` spends: on the account it resolved to (`accountId`), or, when the
 * typed name (`attempted`) matched none, on that name's bucket. The first is the one a success clears.
 */
export function failureBudgets(accountId: string | undefined, attempted: string, ip: string): Budget[] {
  const client = clientKey(ip)
  const name = accountId !== undefined ? `account:${accountId}` : `unknown:${unknownBucket(attempted)}`
  return [
    { key: `${name}|ip:${client}`, policy: 'login-user', limit: 1 },
    { key: name, policy: 'login-account', limit: 10 },
    { key: `ip:${client}`, policy: 'login-ip', limit: 10 },
  ]
}

let reservations = 0

/**
 * Reserves the attempt under every budget and answers what is left of each (for the RateLimit
 * fields of the answer), or throws 429 TOO_MANY_REQUESTS with Retry-After and the refusing budget's
 * RateLimit fields.
 */
export async function reserveLoginAttempt(
  ctx: AppContext,
  budgets: Budget[],
  now: number,
): Promise<RateLimitState[]> {
  const { loginMaxFailures, loginWindowMs } = ctx.config
  reservations += 1
  if (reservations % PRUNE_EVERY === 0)
    await repo.deleteLoginFailuresBefore(ctx.db.kysely, now - loginWindowMs)
  return ctx.db.kysely.transaction().execute(async (tx) => {
    const states: RateLimitState[] = []
    // Always the same kind order (the client's budget last) in every transaction: row locks
    // cannot deadlock.
    for (const { key, policy, limit } of budgets) {
      const quota = loginMaxFailures * limit
      const window = { policy, quota, windowSeconds: loginWindowMs / 1000 }
      const reserved = await repo.reserveLoginAttempt(tx, key, quota, now, now - loginWindowMs)
      if (reserved) {
        const resetSeconds = (reserved.windowStart + loginWindowMs - now) / 1000
        states.push({ ...window, remaining: quota - reserved.count, resetSeconds })
        continue
      }
      // Rolling back returns the reservations already taken under the other keys.
      const row = await repo.findLoginFailures(tx, key)
      const windowEnd = Number(row?.window_start ?? now) + loginWindowMs
      throw new AppError(
        'TOO_MANY_REQUESTS',
        'Too many failed logins; try again later.',
        rateLimitRefusal({ ...window, resetSeconds: (windowEnd - now) / 1000 }),
      )
    }
    return states
  })
}

/** What is left of each budget once a success gave its reservation back (see releaseLoginAttempt). */
export function afterSuccess(states: readonly RateLimitState[]): RateLimitState[] {
  return states.map((state, i) =>
    i === 0 ? { ...state, remaining: state.quota } : { ...state, remaining: state.remaining + 1 },
  )
}

/** A success: the first budget's failures are forgiven, the wider ones get this attempt back. */
export async function releaseLoginAttempt(ctx: AppContext, budgets: Budget[]): Promise<void> {
  const [own, ...shared] = budgets
  await ctx.db.kysely.transaction().execute(async (tx) => {
    if (own) await repo.clearLoginFailures(tx, own.key)
    for (const { key } of shared) await repo.releaseLoginAttempt(tx, key)
  })
}

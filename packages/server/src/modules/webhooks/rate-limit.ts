// Per-account rate limits of webhook management (docs/webhooks.md, "Rate limits"). Registering or
// rotating runs a secret-strength estimate and a bcrypt hash, and a test queues a delivery: the
// limits bound the CPU and the outbound traffic one account can cause. They are kept per process,
// in memory: what they protect is each process's event loop, so a process needs no other
// process's counts (N API processes allow N times the rate in total; a restart forgets them).
import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../../platform/errors.ts'
import { type RateLimitState, rateLimitRefusal, sayRateLimit } from '../../platform/rate-limit-headers.ts'

const WINDOW_MS = 60_000
/** Accounts remembered before idle ones are dropped, so the map stays bounded. */
const MAX_TRACKED = 10_000

/** A sliding log of the last `perMinute` call times per account. */
export class AccountRateLimit {
  readonly #calls = new Map<string, number[]>()

  readonly perMinute: number
  readonly what: string
  readonly variable: string
  /** The policy's name in the RateLimit header fields. */
  readonly policy: string
  /** What a key stands for in the refusal's detail ("account"; links count per client address, per link). */
  readonly per: string

  constructor(perMinute: number, what: string, variable: string, policy: string, per = 'account') {
    this.perMinute = perMinute
    this.what = what
    this.variable = variable
    this.policy = policy
    this.per = per
  }

  /**
   * Counts one call of `accountId` and answers what is left, or throws 429 TOO_MANY_REQUESTS with
   * Retry-After and the RateLimit fields. A sliding log: `resetSeconds` is when its oldest call
   * leaves the window, which gives one unit back.
   */
  take(accountId: string, now = Date.now()): RateLimitState {
    const recent = (this.#calls.get(accountId) ?? []).filter((at) => at > now - WINDOW_MS)
    const bound = { policy: this.policy, quota: this.perMinute, windowSeconds: WINDOW_MS / 1000 }
    if (recent.length >= this.perMinute) {
      const resetSeconds = ((recent[0] ?? now) + WINDOW_MS - now) / 1000
      this.#calls.set(accountId, recent)
      const headers = rateLimitRefusal({ ...bound, resetSeconds })
      throw new AppError(
        'TOO_MANY_REQUESTS',
        `At most ${this.perMinute} ${this.what} per ${this.per} per minute (${this.variable}); retry in ${headers['retry-after']} s.`,
        headers,
      )
    }
    recent.push(now)
    this.#calls.delete(accountId)
    this.#calls.set(accountId, recent)
    if (this.#calls.size > MAX_TRACKED) this.#prune(now)
    const resetSeconds = ((recent[0] ?? now) + WINDOW_MS - now) / 1000
    return { ...bound, remaining: this.perMinute - recent.length, resetSeconds }
  }

  #prune(now: number): void {
    for (const [account, calls] of this.#calls) {
      if ((calls.at(-1) ?? 0) <= now - WINDOW_MS) this.#calls.delete(account)
    }
    // Still too many active accounts: forget the least recently seen (Map keeps insertion order).
    for (const account of this.#calls.keys()) {
      if (this.#calls.size <= MAX_TRACKED) break
      this.#calls.delete(account)
    }
  }

  /** A preHandler counting the authenticated caller's call; says what is left in headers. */
  hook(): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
    return async (request, reply) => sayRateLimit(reply, this.take(request.auth.accountId))
  }
}

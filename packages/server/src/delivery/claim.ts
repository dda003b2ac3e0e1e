// Claiming due deliveries, webhook by webhook, never more than a webhook's free in-flight slots.
//
// The old claim walked the global due index and skipped saturated webhooks row by row, so a deep
// backlog behind one saturated webhook cost a scan of that backlog per claimed delivery. Here one
// statement lists the webhooks that have pending deliveries (a loose scan of the (status,
// webhook_id, next_attempt_at) index: one probe per webhook, however deep its backlog) with their
// earliest due time and live in-flight count; then each webhook with free slots gets one indexed
// query limited to those slots. The same listing tells the worker when to look again.

import type { Db, Tx } from '../platform/db/index.ts'
import type { Job } from './hand-off-port.ts'
import { deliveryStore, type Lease } from './store.ts'

export interface ClaimOptions {
  db: Db
  workerId: string
  /** Most deliveries to claim in this round. */
  limit: number
  /** TESSERA_WEBHOOK_MAX_IN_FLIGHT: live leases per webhook, all processes together. */
  maxPerHook: number
  leaseMs: number
}

export interface Claimed {
  jobs: Job[]
  /** The limit cut the round short: due deliveries with free slots are left. */
  more: boolean
  /** Due deliveries were left for want of free slots of their webhook. */
  saturated: boolean
  /**
   * When something not claimable now becomes due (a retry, an expiring lease); null when nothing
   * is scheduled. Deliveries waiting for a slot of a saturated webhook are not counted: a finishing
   * attempt wakes the worker for them (and the poll covers slots held by other processes).
   */
  nextDueAt: number | null
}

/** What one claim has gathered so far. */
interface Round {
  tx: Tx
  options: ClaimOptions
  now: number
  /** Live leases per webhook, counting those taken in this round. */
  busy: Map<string, number>
  jobs: Job[]
  /** Due deliveries with free slots were left for want of the round's budget. */
  blocked: boolean
  saturated: boolean
  /** Times when something not claimable now becomes due. */
  candidates: number[]
  /** The lease this round gives what it takes. */
  lease: Lease
}

/**
 * Claims up to `limit` due deliveries in `tx`. On PostgreSQL the caller holds the claim lock, so the
 * in-flight counts read here cannot change under us before commit.
 */
export async function claimDue(tx: Tx, options: ClaimOptions): Promise<Claimed> {
  const now = Date.now()
  const round: Round = {
    tx,
    options,
    now,
    busy: new Map(),
    jobs: [],
    blocked: false,
    saturated: false,
    candidates: [],
    lease: { workerId: options.workerId, expiresAt: now + options.leaseMs, now },
  }
  const hooks: Array<{ id: string; nextAt: number }> = []
  let leaseNext: number | null = null
  for (const row of await deliveryStore(options.db).webhooksWithPending(tx, now)) {
    if (row.id === null) leaseNext = row.lease_next === null ? null : Number(row.lease_next)
    else {
      round.busy.set(row.id, Number(row.busy))
      hooks.push({ id: row.id, nextAt: Number(row.next_at) })
    }
  }
  if (leaseNext !== null && leaseNext <= now) await takeExpired(round)
  else if (leaseNext !== null) round.candidates.push(leaseNext)
  // Longest-waiting webhooks first, so a busy one cannot starve the others of the round's budget.
  hooks.sort((a, b) => a.nextAt - b.nextAt)
  for (const hook of hooks) await takeDue(round, hook)
  return {
    jobs: round.jobs,
    more: round.blocked && round.jobs.length >= options.limit,
    saturated: round.saturated,
    nextDueAt: round.candidates.length === 0 ? null : Math.min(...round.candidates),
  }
}

/** Takes over expired leases, within the free slots of their webhooks. */
async function takeExpired(round: Round): Promise<void> {
  const { tx, options, now, busy, jobs } = round
  const { limit, maxPerHook } = options
  const store = deliveryStore(options.db)
  const expired = await store.expiredLeases(tx, now, limit * 4)
  const unknown = [...new Set(expired.map((j) => j.webhook_id))].filter((id) => !busy.has(id))
  if (unknown.length > 0) {
    const counts = await store.liveLeaseCounts(tx, now, unknown)
    for (const id of unknown) busy.set(id, counts.get(id) ?? 0)
  }
  const taken: Job[] = []
  for (const job of expired) {
    const n = busy.get(job.webhook_id) ?? 0
    if (n >= maxPerHook || jobs.length + taken.length >= limit) {
      if (n >= maxPerHook) round.saturated = true
      else round.blocked = true
      continue
    }
    busy.set(job.webhook_id, n + 1)
    taken.push(job)
  }
  await store.leaseDeliveries(
    tx,
    taken.map((job) => job.id),
    round.lease,
  )
  jobs.push(...taken)
}

/** Takes the due deliveries of one webhook, within its free slots and the round's budget. */
async function takeDue(round: Round, hook: { id: string; nextAt: number }): Promise<void> {
  const { tx, options, now, jobs } = round
  if (hook.nextAt > now) {
    round.candidates.push(hook.nextAt)
    return
  }
  const free = options.maxPerHook - (round.busy.get(hook.id) ?? 0)
  if (free <= 0) {
    round.saturated = true
    return
  }
  const budget = options.limit - jobs.length
  if (budget <= 0) {
    round.blocked = true
    return
  }
  const take = Math.min(free, budget)
  const due = await deliveryStore(options.db).leaseDue(tx, hook.id, take, round.lease)
  jobs.push(...due.jobs)
  if (due.later !== null) round.candidates.push(due.later)
  // All it could take were due, so more may be: the round's budget or the webhook's slots ran out.
  if (due.jobs.length === take) {
    if (take < free) round.blocked = true
    else round.saturated = true
  }
}

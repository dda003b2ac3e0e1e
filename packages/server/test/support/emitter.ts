// Drives a running `tessera` from outside, as another process sharing its database would: creates an
// account with the CLI, registers a webhook over HTTP, and emits events through the outbox API
// (emitEvent in a transaction of this process), since no public endpoint emits events yet.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import path from 'node:path'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { subscribeDeliveries } from '../../src/delivery/index.ts'
import { emitEvent } from '../../src/events/index.ts'
import type { Db } from '../../src/platform/db/index.ts'
import { cliAccount } from './process.ts'

export const EVENT = 'attribute_updated'
const SECRET = 'k7Qx-9vR2mWp4ZtL8bNc'

/** An account (made with the CLI) owning one webhook for EVENT that points at `url`. */
export async function registerWebhook(
  env: Record<string, string>,
  baseUrl: string,
  url: string,
): Promise<{ accountId: string; webhookId: string }> {
  const name = `hook${Math.random().toString(36).slice(2, 10)}`
  const { accountId, authToken } = await cliAccount(env, name)
  const res = await fetch(`${baseUrl}/webhook/`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${authToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ event: EVENT, url, secretToken: SECRET }),
  })
  const text = await res.text()
  assert.equal(res.status, 200, text)
  const body = JSON.parse(text) as { data: { id: string } }
  return { accountId, webhookId: body.data.id }
}

/** Emits `count` events for a file of `ownerId`, each in its own committed transaction. */
export async function emitMany(db: Db, ownerId: string, count: number): Promise<void> {
  // As a Tessera process composes itself (server-context.ts): its emits queue their deliveries.
  subscribeDeliveries()
  const ctx = { db, config: { webhookRetryScheduleMs: [0] } }
  for (let i = 0; i < count; i += 1) {
    await db.kysely.transaction().execute((tx) =>
      emitEvent(ctx, tx, {
        event: EVENT,
        fileId: '0123456789abcdef01234567',
        fileOwnerId: ownerId,
        data: { nodeIdToAttributes: { [`node-${i}`]: { n: i } }, user: { email: 'emitter@example.com' } },
      }),
    )
    // better-sqlite3 resolves every query at once: without a turn of the event loop, a receiver
    // in this process would not answer a single request until all events are emitted.
    await yieldToLoop()
  }
}

/** Runs emitMany in a child process (see emit-events.ts for why) against the database of `env`. */
export function emitManyElsewhere(
  env: Record<string, string>,
  ownerId: string,
  count: number,
): Promise<void> {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'emit-events.ts')
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [script, ownerId, String(count)],
      { env: { ...process.env, ...env }, timeout: 300_000 },
      (error, _stdout, stderr) => (error ? reject(new Error(`emit-events failed: ${stderr}`)) : resolve()),
    )
  })
}

/** Deliveries of one webhook by status. */
export async function statusCounts(db: Db, webhookId: string): Promise<Record<string, number>> {
  const rows = await db.kysely
    .selectFrom('deliveries')
    .select(['status', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('webhook_id', '=', webhookId)
    .groupBy('status')
    .execute()
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]))
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export async function until(what: string, probe: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

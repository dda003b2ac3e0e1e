// What every system under test in `npm run bench:delivery` shares: the System interface the bench
// drives, and for the peer queue libraries the delivery work itself — the same envelope, headers
// (x-service-token, Standard Webhooks signature) and verdict (200 with JSON `success: true`) as a
// Tessera attempt, POSTed with undici through one shared agent.
import { randomUUID } from 'node:crypto'
import { Agent, request } from 'undici'
import { signatureHeaders } from '../../packages/server/src/delivery/signing.ts'

export const EVENT = 'attribute_updated'
export const FILE_ID = '0123456789abcdef01234567'
export const OWNER = 'bench@example.com'
export const SECRET = 'k7Qx-9vR2mWp4ZtL8bNc'
// A bcrypt hash as the engine sends it (computed once per secret, never per delivery).
const SERVICE_TOKEN = '$2b$10$CwTycUXWue0Thq9StjUM0uJ8.9Qs3Jm0pFhcBy1L3zVZ1LHhKmXcW'

/** A system the bench drives: it enqueues events durably and delivers them to the receiver. */
export interface System {
  readonly name: string
  /** Durably enqueues event `seq`; resolves once the queue has it (committed / acknowledged). */
  enqueue(seq: number, t: number): Promise<void>
  /** Tessera only: pause the webhook, so emits write paused deliveries and nothing is sent. */
  pauseWebhook?(): Promise<void>
  close(): Promise<void>
}

export interface SystemOptions {
  receiverUrl: string
  /** Deliveries in flight at once (Tessera: TESSERA_WEBHOOK_MAX_IN_FLIGHT). */
  concurrency: number
  /** PostgreSQL URL for the systems that need one. */
  databaseUrl: string | undefined
}

/** The event data of `seq`; `t` (ms, wall clock) lets the receiver measure emit-to-arrival. */
export function eventData(seq: number, t: number) {
  return { nodeIdToAttributes: { [`node-${seq}`]: { color: 'red' } }, t }
}

/** A peer's job payload: what Tessera stores per delivery (its uuid, data and trigger time). */
export interface PeerJob {
  uuid: string
  data: ReturnType<typeof eventData>
  runTimestamp: number
}

export function peerJob(seq: number, t: number): PeerJob {
  return { uuid: randomUUID(), data: eventData(seq, t), runTimestamp: Date.now() }
}

/** POSTs peer jobs exactly as a Tessera attempt POSTs a delivery. */
export class PeerSender {
  readonly #agent = new Agent()

  readonly url: string

  constructor(url: string) {
    this.url = url
  }

  /** One attempt; throws (so the queue retries) unless the receiver answers 200 + success. */
  async deliver(job: PeerJob): Promise<void> {
    const body = JSON.stringify({
      file: FILE_ID,
      event: EVENT,
      data: job.data,
      owner: OWNER,
      runTimestamp: job.runTimestamp,
      uuid: job.uuid,
    })
    const res = await request(this.url, {
      method: 'POST',
      dispatcher: this.#agent,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Tessera-Webhooks/1',
        'x-service-token': SERVICE_TOKEN,
        ...signatureHeaders({
          msgId: job.uuid,
          timestampSec: Math.floor(Date.now() / 1000),
          body,
          secrets: [SECRET],
        }),
      },
      body,
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    })
    const answer = (await res.body.json()) as { success?: unknown }
    if (res.statusCode !== 200 || answer.success !== true)
      throw new Error(`receiver answered ${res.statusCode}`)
  }

  close(): Promise<void> {
    return this.#agent.close()
  }
}

/** A fresh schema name for one run. */
export function schemaName(prefix: string): string {
  return `${prefix}_${process.pid}_${randomUUID().slice(0, 8)}`
}

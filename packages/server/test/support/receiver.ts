// A real HTTP webhook receiver on a loopback port, plus helpers to register webhooks and emit
// events the way the other modules do.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { type EmitInput, emitEvent } from '../../src/events/index.ts'
import type { TestApp } from './harness.ts'

export const SECRET = 'k7Qx-9vR2mWp4ZtL8bNc'

export interface Received {
  path: string
  headers: IncomingMessage['headers']
  body: string
  at: number
}

export type Behaviour = (req: Received, res: ServerResponse, nth: number) => void | Promise<void>

/** Each path answers as its behaviour says (default: success); requests in flight are counted per path. */
export class Receiver {
  readonly seen: Received[] = []
  readonly behaviours = new Map<string, Behaviour>()
  readonly active = new Map<string, number>()
  readonly maxActive = new Map<string, number>()
  base = ''
  #server: Server = createServer((req, res) => void this.#handle(req, res))

  /** Listens on `port` (default: any free one). */
  async start(port = 0): Promise<void> {
    this.#server.listen(port, '127.0.0.1')
    await once(this.#server, 'listening')
    this.base = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections()
    this.#server.close()
  }

  on(path: string, behaviour: Behaviour): string {
    this.behaviours.set(path, behaviour)
    return `${this.base}${path}`
  }

  at(path: string): Received[] {
    return this.seen.filter((r) => r.path === path)
  }

  /** Envelopes received on `path`, parsed. */
  envelopes(path: string): Array<{ file: string; event: string; data: unknown; owner: string }> {
    return this.at(path).map((r) => JSON.parse(r.body))
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = req.url ?? ''
    const active = (this.active.get(path) ?? 0) + 1
    this.active.set(path, active)
    this.maxActive.set(path, Math.max(this.maxActive.get(path) ?? 0, active))
    try {
      const chunks: Buffer[] = []
      for await (const chunk of req) chunks.push(chunk as Buffer)
      const received = { path, headers: req.headers, body: Buffer.concat(chunks).toString(), at: Date.now() }
      this.seen.push(received)
      const behaviour = this.behaviours.get(path) ?? ok
      await behaviour(received, res, this.at(path).length)
    } finally {
      this.active.set(path, (this.active.get(path) ?? 1) - 1)
    }
  }
}

export function ok(_req: Received, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end('{"success":true}')
}

export function status(code: number, body = '{"success":false}') {
  return (_req: Received, res: ServerResponse): void => {
    res.writeHead(code, { 'content-type': 'application/json' })
    res.end(body)
  }
}

/** Never answers; settles when the sender gives up and closes the connection. */
export const hang: Behaviour = (_req, res) => new Promise<void>((resolve) => res.on('close', resolve))

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export async function until<T>(
  what: string,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  ms = 8000,
): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(25)
  }
}

export async function register(
  app: FastifyInstance,
  authToken: string,
  event: string,
  url: string,
  secretToken = SECRET,
) {
  const res = await app.inject({
    method: 'PUT',
    url: '/webhook/',
    headers: { authorization: `Bearer ${authToken}` },
    payload: { event, url, secretToken },
  })
  assert.equal(res.statusCode, 200, res.body)
  return res.json().data.id as string
}

export function emit(t: TestApp, input: EmitInput) {
  return t.db.kysely.transaction().execute((tx) => emitEvent(t.app.ctx, tx, input))
}

export function deliveriesOf(t: TestApp, webhookId: string) {
  return t.db.kysely
    .selectFrom('deliveries')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .orderBy('id')
    .execute()
}

/** Waits until the webhook has `count` deliveries and none is pending or in flight. */
export function settled(t: TestApp, webhookId: string, count = 1) {
  return until(`${count} settled deliveries`, async () => {
    const rows = await deliveriesOf(t, webhookId)
    const done = rows.filter((r) => ['succeeded', 'failed', 'paused'].includes(r.status))
    return rows.length >= count && done.length === rows.length ? rows : null
  })
}

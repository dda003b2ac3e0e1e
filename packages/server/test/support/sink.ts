// A webhook receiver on loopback for process-level tests: answers success (optionally after a
// delay), records every envelope uuid it receives, in arrival order, duplicates included.
import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export class Sink {
  /** Every uuid received, in order, duplicates included. */
  readonly uuids: string[] = []
  readonly unique = new Set<string>()
  active = 0
  url = ''
  /** Called after each request is recorded (e.g. to kill the sender at a chosen moment). */
  onReceive: ((sink: Sink) => void) | null = null
  readonly #server = createServer((req, res) => void this.#handle(req, res))

  readonly delayMs: number

  constructor(delayMs = 0) {
    this.delayMs = delayMs
  }

  async start(): Promise<void> {
    this.#server.listen(0, '127.0.0.1')
    await once(this.#server, 'listening')
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hook`
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections()
    this.#server.close()
  }

  get duplicates(): number {
    return this.uuids.length - this.unique.size
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.active += 1
    try {
      const chunks: Buffer[] = []
      for await (const chunk of req) chunks.push(chunk as Buffer)
      const { uuid } = JSON.parse(Buffer.concat(chunks).toString()) as { uuid: string }
      this.uuids.push(uuid)
      this.unique.add(uuid)
      this.onReceive?.(this)
      if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs))
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"success":true}')
    } catch {
      // The sender went away mid-request (e.g. it was killed): nothing to answer.
      res.destroy()
    } finally {
      this.active -= 1
    }
  }
}

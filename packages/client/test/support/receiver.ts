// A webhook receiver on a loopback port that verifies every delivery with the SDK's verifier and
// answers as Tessera expects (200, JSON, success true); a failed verification answers 400.
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { verifyWebhook, type WebhookEnvelope, WebhookVerificationError } from '@tessera/client/webhooks'

export const FIXTURE = new URL(import.meta.resolve('@tessera/server/package.json'))
export const SMALL_HOUSE = new URL('test/fixtures/conversion/small-house.ifc', FIXTURE)

export interface Verified {
  envelope: WebhookEnvelope
  test: boolean
}

export class VerifyingReceiver {
  readonly verified: Verified[] = []
  readonly refused: string[] = []
  url = ''
  #server: Server

  private readonly secret: string | string[]

  constructor(secret: string | string[]) {
    this.secret = secret
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        const body = Buffer.concat(chunks)
        verifyWebhook({ headers: req.headers, body, secret: this.secret }).then(
          (envelope) => {
            this.verified.push({ envelope, test: req.headers['x-service-test'] === '1' })
            res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}')
          },
          (error: unknown) => {
            this.refused.push(error instanceof WebhookVerificationError ? error.reason : String(error))
            res.writeHead(400, { 'content-type': 'application/json' }).end('{"success":false}')
          },
        )
      })
    })
  }

  async start(): Promise<void> {
    this.#server.listen(0, '127.0.0.1')
    await once(this.#server, 'listening')
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hook`
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections()
    await new Promise((resolve) => this.#server.close(resolve))
  }
}

export async function until<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

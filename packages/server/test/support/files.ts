// Helpers for file tests (and for any module that needs an uploaded file): multipart bodies built
// byte by byte (so tests control exactly what a client sends), uploads, and a loopback webhook
// receiver.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'

export type FormPart =
  | { name: string; value: string }
  | { name: string; filename?: string; data: Buffer; contentType?: string }

/** A multipart/form-data body; header values are written as UTF-8 bytes, unescaped. */
export function multipart(parts: FormPart[]): { body: Buffer; contentType: string } {
  const boundary = `----tessera-${randomBytes(12).toString('hex')}`
  const chunks: Buffer[] = []
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`
    if ('data' in part) {
      if (part.filename !== undefined) head += `; filename="${part.filename}"`
      head += `\r\nContent-Type: ${part.contentType ?? 'application/octet-stream'}`
    }
    chunks.push(Buffer.from(`${head}\r\n\r\n`, 'utf8'))
    chunks.push('data' in part ? part.data : Buffer.from(part.value, 'utf8'))
    chunks.push(Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` }
}

export function postForm(
  app: FastifyInstance,
  headers: Record<string, string>,
  parts: FormPart[],
): Promise<LightMyRequestResponse> {
  const form = multipart(parts)
  return app.inject({
    method: 'POST',
    url: '/file/upload/',
    headers: { ...headers, 'content-type': form.contentType },
    payload: form.body,
  })
}

export interface UploadedFile {
  _id: string
  name: string
  key: string
  parent: string
  size: number
  state: string
  revisionDate: string
  __v: number
  [field: string]: unknown
}

/** Uploads `data` as `name` (into `parent`) and answers the file record; fails the test otherwise. */
export async function uploadFile(
  app: FastifyInstance,
  headers: Record<string, string>,
  file: { name: string; data?: Buffer; parent?: string },
): Promise<UploadedFile> {
  const parts: FormPart[] = []
  if (file.parent !== undefined) parts.push({ name: 'parent', value: file.parent })
  parts.push({ name: 'file', filename: file.name, data: file.data ?? Buffer.from(`solid ${file.name}\n`) })
  const res = await postForm(app, headers, parts)
  assert.equal(res.statusCode, 200, res.body)
  return (res.json() as { file: UploadedFile }).file
}

export interface Received {
  path: string
  headers: IncomingMessage['headers']
  body: string
}

/** A webhook receiver on loopback that answers every POST with success. */
export class Receiver {
  readonly seen: Received[] = []
  base = ''
  readonly #server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      this.seen.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() })
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"success":true}')
    })
  })

  async start(): Promise<void> {
    this.#server.listen(0, '127.0.0.1')
    await once(this.#server, 'listening')
    this.base = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections()
    this.#server.close()
  }

  /** Envelopes received on `path`, parsed. */
  envelopes(path: string): Array<{ file: string; event: string; data: unknown; owner: string }> {
    return this.seen.filter((r) => r.path === path).map((r) => JSON.parse(r.body))
  }
}

export const WEBHOOK_SECRET = 'k7Qx-9vR2mWp4ZtL8bNc'

export async function registerWebhook(app: FastifyInstance, authToken: string, event: string, url: string) {
  const res = await app.inject({
    method: 'PUT',
    url: '/webhook/',
    headers: { authorization: `Bearer ${authToken}` },
    payload: { event, url, secretToken: WEBHOOK_SECRET },
  })
  assert.equal(res.statusCode, 200, res.body)
  return (res.json() as { data: { id: string } }).data.id
}

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
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

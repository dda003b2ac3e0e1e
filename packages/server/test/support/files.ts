// Helpers for file tests (and for any module that needs an uploaded file): multipart bodies built
// byte by byte (so tests control exactly what a client sends) and uploads. Webhook receivers are in
// receiver.ts.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
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

// @tessera/client/node: everything of the main entry plus Node-only uploads (a path, a Node stream).
/// <reference types="node" preserve="true" />
// (The reference above stays in dist/node.d.ts: this entry needs @types/node, the others do not.)
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import path from 'node:path'
import { Readable } from 'node:stream'
import type { Tessera } from './client.ts'
import type { FileView } from './types.ts'
import type { UploadOptions } from './upload.ts'

export * from './index.ts'

/**
 * Uploads the file at `filePath` (name default: its base name). The file is read lazily as the
 * connection takes it, so memory stays constant whatever its size.
 */
export async function uploadPath(
  tessera: Tessera,
  filePath: string,
  options: UploadOptions = {},
): Promise<FileView> {
  const { size } = await stat(filePath)
  // 1 MiB reads: fewer chunks through the web stream than a Blob's 64 KiB ones (throughput);
  // the stream holds about one read ahead, so memory stays constant.
  const stream = Readable.toWeb(createReadStream(filePath, { highWaterMark: 1024 * 1024 }))
  return tessera.files.upload(stream as ReadableStream<Uint8Array>, {
    name: path.basename(filePath),
    size,
    ...options,
  })
}

/** Uploads a Node Readable (a socket, a child process's stdout, …); `options.name` is required. */
export function uploadNodeStream(
  tessera: Tessera,
  stream: Readable,
  options: UploadOptions,
): Promise<FileView> {
  return tessera.files.upload(Readable.toWeb(stream) as ReadableStream<Uint8Array>, options)
}

/** A download (ReadableStream) as a Node Readable, e.g. to pipe into a file. */
export function toNodeStream(stream: ReadableStream<Uint8Array>): Readable {
  return Readable.fromWeb(stream as import('node:stream/web').ReadableStream<Uint8Array>)
}

// The upload's first bytes, read before anything is stored, and what refusing a format answers.
import type { Readable } from 'node:stream'
import type { AppContext } from '../../../platform/context.ts'
import { AppError } from '../../../platform/errors.ts'
import type { StoredBytesReader, UploadFormatPolicy } from './format.ts'

/**
 * Reads at least `want` bytes of the part (fewer when it is shorter) and pauses it there: the rest
 * stays in the stream for the store. `ended` says the whole part was read.
 */
export function readHead(file: Readable, want: number): Promise<{ bytes: Buffer; ended: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let have = 0
    const finish = (ended: boolean): void => {
      file.off('data', onData)
      file.off('end', onEnd)
      file.off('error', onError)
      if (!ended) file.pause()
      resolve({ bytes: Buffer.concat(chunks), ended })
    }
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk)
      have += chunk.byteLength
      if (have >= want) finish(false)
    }
    const onEnd = (): void => finish(true)
    // A broken part: reported by the store's relay as the client's error, like any other.
    const onError = (): void => finish(false)
    if (file.errored || file.readableEnded) {
      resolve({ bytes: Buffer.alloc(0), ended: file.readableEnded })
      return
    }
    file.on('data', onData)
    file.once('end', onEnd)
    file.once('error', onError)
  })
}

/** 415 with the supported formats; the connection closes so a client still sending stops. */
export function refused(reason: string, policy: UploadFormatPolicy): AppError {
  return new AppError('UNSUPPORTED_FORMAT', `This file cannot be converted: ${reason}. ${policy.supported}`, {
    connection: 'close',
  })
}

/** Reads a byte range of a stored blob into memory (the caller bounds the range). */
export function storedReader(ctx: AppContext, key: string): StoredBytesReader {
  return async (start, end) => {
    const length = end - start + 1
    const chunks: Buffer[] = []
    let have = 0
    for await (const chunk of await ctx.blobs.get(key, { start, end })) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array)
      chunks.push(bytes)
      have += bytes.byteLength
      // Some stores send more than the range asked for; the range's bytes come first.
      if (have >= length) break
    }
    return new Uint8Array(Buffer.concat(chunks).subarray(0, length))
  }
}

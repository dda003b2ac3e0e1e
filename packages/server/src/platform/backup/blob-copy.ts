// Copying blobs between the blob store and a backup folder, hashing every byte on the way.
import { createHash, randomBytes } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, rename, rm } from 'node:fs/promises'
import path from 'node:path'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { BlobStore } from '../blobs/index.ts'
import { assertSafeKey } from '../blobs/index.ts'
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../file-modes.ts'
import { BLOB_DIR, type BlobEntry } from './manifest.ts'

function hasher() {
  const hash = createHash('sha256')
  let size = 0
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length
      hash.update(chunk)
      done(null, chunk)
    },
  })
  return { stream, result: () => ({ size, sha256: hash.digest('hex') }) }
}

export function backupBlobPath(dir: string, key: string): string {
  assertSafeKey(key)
  return path.join(dir, BLOB_DIR, key)
}

function isNotFound(error: unknown): boolean {
  const e = error as { code?: string; name?: string; $metadata?: { httpStatusCode?: number } }
  return e.code === 'ENOENT' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404
}

/** Copies one blob into the backup folder (atomically); null when the store no longer has it. */
export async function copyBlobOut(store: BlobStore, dir: string, key: string): Promise<BlobEntry | null> {
  const target = backupBlobPath(dir, key)
  await mkdir(path.dirname(target), { recursive: true, mode: PRIVATE_DIR_MODE })
  const tmp = `${target}.${randomBytes(6).toString('hex')}.part`
  const measure = hasher()
  try {
    if ((await store.size(key)) === null) return null
    const source = await store.get(key)
    await pipeline(source, measure.stream, createWriteStream(tmp, { flags: 'wx', mode: PRIVATE_FILE_MODE }))
    await rename(tmp, target)
    return { key, ...measure.result() }
  } catch (error) {
    await rm(tmp, { force: true })
    if (isNotFound(error)) return null
    throw error
  }
}

/** The sha256 and size of a blob in the backup folder. */
export async function hashBackupBlob(dir: string, key: string): Promise<{ size: number; sha256: string }> {
  const measure = hasher()
  await pipeline(createReadStream(backupBlobPath(dir, key)), measure.stream, async (source) => {
    for await (const _ of source) {
      // drained: only the hash is wanted
    }
  })
  return measure.result()
}

/** Puts one backed-up blob into the store; throws when the bytes stored differ from the manifest. */
export async function copyBlobIn(store: BlobStore, dir: string, entry: BlobEntry): Promise<void> {
  const stored = await store.put(entry.key, createReadStream(backupBlobPath(dir, entry.key)))
  if (stored.sha256 !== entry.sha256 || stored.size !== entry.size) {
    await store.delete(entry.key)
    throw new Error(`blob ${entry.key} changed while it was restored (sha256 ${stored.sha256})`)
  }
}

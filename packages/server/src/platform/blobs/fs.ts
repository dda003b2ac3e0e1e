// Local filesystem driver: write to a temp file in the same filesystem, fsync, then rename into
// place (rename is atomic), so readers never see a half-written blob.
import { randomBytes } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../file-modes.ts'
import { abandonedTemp, TEMP_OWNER } from '../workers.ts'
import type { BlobRange, BlobStore, PutResult } from './index.ts'
import { assertSafeKey, LOCAL_BUCKET, MeasuringStream } from './streams.ts'

/** A temp blob untouched this long has no live writer: uploads keep a minimum rate. */
const TEMP_MAX_AGE_MS = 3600_000

export class FsBlobStore implements BlobStore {
  readonly bucket: string
  private readonly root: string

  constructor(root: string) {
    this.root = root
    // The record names the store, never the host's path to it (docs/api.md, the file record).
    this.bucket = LOCAL_BUCKET
  }

  #path(key: string): string {
    assertSafeKey(key)
    return path.join(this.root, key)
  }

  async put(
    key: string,
    body: NodeJS.ReadableStream,
    options: { maxBytes?: number } = {},
  ): Promise<PutResult> {
    const target = this.#path(key)
    const tmpDir = path.join(this.root, '.tmp')
    // Owner-only: the umask only takes bits away, and the usual ones (022, 027, 077) leave 0700 and
    // 0600 whole. rename keeps the temp file's mode.
    await mkdir(tmpDir, { recursive: true, mode: PRIVATE_DIR_MODE })
    await mkdir(path.dirname(target), { recursive: true, mode: PRIVATE_DIR_MODE })
    // Named after this process, so a sweep can tell a crashed writer's leftovers (sweepTemp).
    const tmp = path.join(tmpDir, `${TEMP_OWNER}${randomBytes(12).toString('hex')}`)
    const meter = new MeasuringStream(options.maxBytes)
    try {
      await pipeline(body, meter, createWriteStream(tmp, { flags: 'wx', mode: PRIVATE_FILE_MODE }))
      const handle = await open(tmp, 'r')
      try {
        await handle.sync()
      } finally {
        await handle.close()
      }
      await rename(tmp, target)
      return meter.result()
    } catch (error) {
      await rm(tmp, { force: true })
      throw error
    }
  }

  async get(key: string, range?: BlobRange): Promise<NodeJS.ReadableStream> {
    return createReadStream(this.#path(key), range ? { start: range.start, end: range.end } : {})
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await stat(this.#path(key))).size
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw error
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.#path(key), { force: true })
  }

  async close(): Promise<void> {}

  /**
   * Removes the temp files of writers that died mid-write (a crash during an upload): those of a
   * process of this host that is gone, and any older than TEMP_MAX_AGE_MS. Answers how many.
   */
  async sweepTemp(now = Date.now()): Promise<number> {
    const tmpDir = path.join(this.root, '.tmp')
    const names = await readdir(tmpDir).catch(() => [] as string[])
    let removed = 0
    for (const name of names) {
      const file = path.join(tmpDir, name)
      const info = await stat(file).catch(() => null)
      if (!info || !abandonedTemp(name, now - info.mtimeMs, TEMP_MAX_AGE_MS)) continue
      await rm(file, { force: true, recursive: true })
      removed += 1
    }
    return removed
  }
}

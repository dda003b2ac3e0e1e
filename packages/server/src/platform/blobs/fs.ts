// Local filesystem driver: write to a temp file in the same filesystem, fsync, then rename into
// place (rename is atomic), so readers never see a half-written blob.
import { randomBytes } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, open, rename, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { BlobRange, BlobStore, PutResult } from './index.ts'
import { assertSafeKey, MeasuringStream } from './streams.ts'

export class FsBlobStore implements BlobStore {
  readonly bucket: string
  constructor(private readonly root: string) {
    this.bucket = `file://${root}`
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
    await mkdir(tmpDir, { recursive: true })
    await mkdir(path.dirname(target), { recursive: true })
    const tmp = path.join(tmpDir, randomBytes(12).toString('hex'))
    const meter = new MeasuringStream(options.maxBytes)
    try {
      await pipeline(body, meter, createWriteStream(tmp, { flags: 'wx' }))
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
}

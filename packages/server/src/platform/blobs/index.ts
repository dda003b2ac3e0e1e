// Blob storage behind one small interface, with a local-filesystem driver (default, under the
// data dir) and an S3-compatible driver. Writes are streamed and atomic: a blob is visible under
// its key only once every byte is stored, and an aborted or oversize write leaves nothing behind.
import { FsBlobStore } from './fs.ts'

export { assertSafeKey, publicBucketName } from './streams.ts'

export interface PutResult {
  size: number
  sha256: string
}

export interface BlobRange {
  start: number
  /** Inclusive. */
  end: number
}

export interface BlobStore {
  /** Recorded as the file record's `bucket`: where the blob lives. */
  readonly bucket: string
  put(key: string, body: NodeJS.ReadableStream, options?: { maxBytes?: number }): Promise<PutResult>
  get(key: string, range?: BlobRange): Promise<NodeJS.ReadableStream>
  size(key: string): Promise<number | null>
  delete(key: string): Promise<void>
  close(): Promise<void>
  /** Removes leftovers of writers that crashed mid-write (local store only; see fs.ts). */
  sweepTemp?(): Promise<number>
}

export async function openBlobStore(storageUrl: string): Promise<BlobStore> {
  const url = new URL(storageUrl)
  if (url.protocol === 'file:') return new FsBlobStore(decodeURIComponent(url.pathname))
  // The AWS SDK is loaded only when it is used.
  if (url.protocol === 's3:') return (await import('./s3.ts')).S3BlobStore.fromUrl(url)
  throw new Error(`unsupported storage URL ${url.protocol}`)
}

// S3-compatible driver: `s3://bucket?endpoint=http://host:port&region=…` (path-style when an
// endpoint is given). Credentials come from the AWS default chain (env, profile), or from
// `accessKeyId`/`secretAccessKey` URL parameters for local S3 servers. A multipart upload only
// becomes an object when it completes, so an aborted or oversize upload leaves nothing.

import { PassThrough, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'
import type { BlobRange, BlobStore, PutResult } from './index.ts'
import { assertSafeKey, MeasuringStream } from './streams.ts'

export class S3BlobStore implements BlobStore {
  readonly bucket: string
  private readonly client: S3Client
  private readonly bucketName: string

  constructor(client: S3Client, bucketName: string) {
    this.client = client
    this.bucketName = bucketName
    // The bucket's name only: the endpoint (host, port, perhaps a private address) is not the
    // business of API readers or webhook receivers.
    this.bucket = `s3://${bucketName}`
  }

  static fromUrl(url: URL): S3BlobStore {
    const bucket = url.hostname
    if (!bucket) throw new Error('TESSERA_STORAGE_URL s3:// needs a bucket name')
    const endpoint = url.searchParams.get('endpoint') ?? undefined
    const accessKeyId = url.searchParams.get('accessKeyId')
    const secretAccessKey = url.searchParams.get('secretAccessKey')
    const client = new S3Client({
      region: url.searchParams.get('region') ?? 'us-east-1',
      ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
      ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
    })
    return new S3BlobStore(client, bucket)
  }

  async put(
    key: string,
    body: NodeJS.ReadableStream,
    options: { maxBytes?: number } = {},
  ): Promise<PutResult> {
    assertSafeKey(key)
    const meter = new MeasuringStream(options.maxBytes)
    const passthrough = new PassThrough()
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucketName, Key: key, Body: passthrough },
      queueSize: 2,
      partSize: 8 * 1024 * 1024,
    })
    const feeding = pipeline(body, meter, passthrough)
    try {
      await Promise.all([feeding, upload.done()])
    } catch (error) {
      await upload.abort().catch(() => {})
      await feeding.catch(() => {})
      throw error
    }
    return meter.result()
  }

  async get(key: string, range?: BlobRange): Promise<NodeJS.ReadableStream> {
    assertSafeKey(key)
    const result = await this.client.send(
      new GetObjectCommand({
        Bucket: this.bucketName,
        Key: key,
        ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
      }),
    )
    return result.Body as Readable
  }

  async size(key: string): Promise<number | null> {
    assertSafeKey(key)
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucketName, Key: key }))
      return head.ContentLength ?? null
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode
      if (status === 404) return null
      throw error
    }
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key)
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucketName, Key: key }))
  }

  async close(): Promise<void> {
    this.client.destroy()
  }
}

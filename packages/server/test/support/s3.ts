// A real S3-compatible server on loopback (s3rver) for the S3 blob driver's tests.
import { rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tempDir } from './harness.ts'

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>
  close(): Promise<void>
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance

// s3rver is CommonJS without type declarations.
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass

export async function startS3(bucket = 'tessera'): Promise<{ storageUrl: string; close(): Promise<void> }> {
  const directory = tempDir('tessera-s3-')
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  })
  const { port } = await server.run()
  const endpoint = `http://127.0.0.1:${port}`
  return {
    storageUrl: `s3://${bucket}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1&accessKeyId=S3RVER&secretAccessKey=S3RVER`,
    async close() {
      await server.close()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}

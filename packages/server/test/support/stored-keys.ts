// What a blob store holds, read behind the app's back: for tests that check nothing is left over.
import type { Dirent } from 'node:fs'
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3'
import type { TestApp } from './harness.ts'

/** Every blob the app's store holds, including leftovers of unfinished writes (fs `.tmp`), sorted. */
export async function storedKeys(t: TestApp): Promise<string[]> {
  const url = new URL(t.config.storageUrl)
  if (url.protocol === 'file:') return filesUnder(decodeURIComponent(url.pathname))
  const client = new S3Client({
    region: 'us-east-1',
    endpoint: url.searchParams.get('endpoint') ?? '',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  })
  try {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: url.hostname }))
    return (listed.Contents ?? []).map((o) => o.Key ?? '').sort()
  } finally {
    client.destroy()
  }
}

function filesUnder(root: string): string[] {
  const walk = (dir: string): string[] => {
    let entries: Dirent[]
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      return []
    }
    return entries.flatMap((e) =>
      e.isDirectory() ? walk(path.join(dir, e.name)) : [path.relative(root, path.join(dir, e.name))],
    )
  }
  return walk(root).sort()
}

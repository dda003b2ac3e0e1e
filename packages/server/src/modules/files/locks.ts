// The locks of a file. Every module that changes a file or its jobs takes them through here.
import { type Db, lockResource, type Tx } from '../../platform/db/index.ts'

/**
 * The lock order of files, followed by every transaction that changes a file, its shares or its
 * jobs (upload, revision, deletion, sharing, conversion claims and outcomes):
 *
 * 0. `tessera.favourites.<account>` — starring only (favourites/service.ts): one account's stars count
 *    one after another against TESSERA_ACCOUNT_MAX_FAVOURITES.
 * 0. `lockAccountQuota(owner)` — only with TESSERA_ACCOUNT_QUOTA_BYTES set (quota.ts), first in
 *    uploads and in thumbnail writes of saved views (before the configuration's own lock): writes
 *    that grow one account's stored bytes queue so that together they cannot pass the quota.
 * 1. `lockFilePath(owner, key)` — uploads only, before reading which file sits at the path: two
 *    first uploads to one path cannot both create the file.
 * 2. `lockFile(fileId)` — before reading for change or writing the file's row, its shares or its
 *    job rows (a job row is locked, FOR UPDATE, only after its file).
 *
 * One order everywhere, so concurrent transactions queue instead of deadlocking on PostgreSQL
 * (advisory locks held until commit). SQLite has a single writer, so these cost nothing there.
 */
export async function lockFile(db: Db, tx: Tx, fileId: string): Promise<void> {
  await lockResource(db, tx, `tessera.files.${fileId}`)
}

/** See lockFile for the order. `key` is the file's full path in the owner's tree. */
export async function lockFilePath(db: Db, tx: Tx, ownerId: string, key: string): Promise<void> {
  await lockResource(db, tx, `tessera.files.path.${ownerId}.${key}`)
}

// `tessera-server backup`: a consistent online backup of the database and of every blob its rows refer to.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, rmSync } from 'node:fs'
import { type BlobStore, openBlobStore } from '../blobs/index.ts'
import type { Config } from '../config.ts'
import { configuredDialect } from '../db/index.ts'
import { makePrivateDir } from '../file-modes.ts'
import { backupBlobPath, copyBlobOut } from './blob-copy.ts'
import {
  type BlobEntry,
  MANIFEST_FORMAT,
  type Manifest,
  type MissingBlob,
  serverVersion,
  writeManifest,
} from './manifest.ts'
import {
  type BlobRef,
  livePgRefs,
  liveSqliteRefs,
  type Snapshot,
  snapshotPostgres,
  snapshotSqlite,
} from './snapshot.ts'

/** Snapshots taken at most, when blobs of one vanished before they were copied (see backup). */
const MAX_ROUNDS = 3

/** A backup that cannot be taken as asked (exit code 2, the message says what to do). */
export class BackupError extends Error {}

export interface BackupOptions {
  config: Config
  to: string
  /** Progress lines for the operator. */
  say?: (line: string) => void
}

/** Where pg_dump is, or a BackupError with exact guidance. */
export function findPgTool(name: 'pg_dump' | 'pg_restore'): string {
  try {
    return execFileSync('which', [name], { encoding: 'utf8' }).trim()
  } catch {
    throw new BackupError(
      `${name} is not on PATH. Install the PostgreSQL client tools of your server's major version or newer ` +
        `(Debian/Ubuntu: apt-get install postgresql-client; macOS: brew install libpq), or run by hand: ` +
        (name === 'pg_dump'
          ? 'pg_dump --format=custom --schema=<schema> --no-owner --file=<DIR>/tessera.pgdump "$TESSERA_DATABASE_URL", then copy the blob store.'
          : 'pg_restore --no-owner --no-privileges --exit-on-error --dbname="$TESSERA_DATABASE_URL" <DIR>/tessera.pgdump, then copy the blobs.'),
    )
  }
}

/** An empty (or new) folder, 0700. */
function prepareEmptyDir(dir: string): void {
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new BackupError(`${dir} is not empty`)
  makePrivateDir(dir)
}

function liveRefs(config: Config): Promise<BlobRef[]> {
  return config.databaseUrl ? livePgRefs(config.databaseUrl) : liveSqliteRefs(config.dataDir)
}

/**
 * Backs up into `to` (empty or new): the database snapshot, every blob its rows refer to, and
 * manifest.json. Blobs are immutable once referenced (every upload and every conversion output
 * gets a fresh key; a replaced or deleted file's blob is removed after its transaction commits), so
 * a blob copied at any time holds the bytes the snapshot refers to. Pass 1 copies the blobs the
 * live rows refer to BEFORE the snapshot: what the snapshot refers to afterwards is then almost all
 * here, even if its file is revised or deleted (and the blob removed) while the copy runs. Pass 2,
 * after the snapshot, copies what was uploaded in between; a blob removed in that short window
 * (its row changed after the snapshot) is the one case where the copy misses: then a new snapshot is
 * taken, which no longer refers to it, up to MAX_ROUNDS times, and any still missing is reported.
 */
export async function backup(options: BackupOptions): Promise<Manifest> {
  const { config, to } = options
  const say = options.say ?? (() => {})
  const pgDump = config.databaseUrl ? findPgTool('pg_dump') : null
  prepareEmptyDir(to)
  const store = await openBlobStore(config.storageUrl)
  try {
    const copied = new Map<string, BlobEntry>()
    const copy = async (key: string) => copied.get(key) ?? (await copyOnce(store, to, key, copied))
    const before = await liveRefs(config)
    say(`copying ${before.length} blobs the live rows refer to`)
    for (const ref of before) await copy(ref.key)
    let snapshot: Snapshot | null = null
    let missing: MissingBlob[] = []
    for (let round = 1; round <= MAX_ROUNDS && (snapshot === null || missing.length > 0); round += 1) {
      if (snapshot) rmSync(`${to}/${snapshot.database}`, { force: true })
      snapshot =
        config.databaseUrl && pgDump
          ? await snapshotPostgres(config.databaseUrl, to, pgDump)
          : await snapshotSqlite(config.dataDir, to)
      say(`snapshot ${round}: ${snapshot.refs.length} blob references`)
      missing = []
      for (const ref of snapshot.refs)
        if ((await copy(ref.key)) === null) missing.push({ key: ref.key, reason: '' })
    }
    if (snapshot === null) throw new Error('no snapshot taken')
    const entries = keepReferenced(to, snapshot, copied)
    missing = [...(await explainMissing(config, missing)), ...checkHashes(snapshot, copied)]
    const manifest: Manifest = {
      format: MANIFEST_FORMAT,
      version: serverVersion(),
      createdAt: new Date().toISOString(),
      dialect: configuredDialect(config.databaseUrl),
      migration: snapshot.migration,
      ...(snapshot.schema ? { schema: snapshot.schema } : {}),
      database: snapshot.database,
      counts: snapshot.counts,
      blobs: entries,
      missing,
    }
    writeManifest(to, manifest)
    return manifest
  } finally {
    await store.close()
  }
}

async function copyOnce(
  store: BlobStore,
  dir: string,
  key: string,
  copied: Map<string, BlobEntry>,
): Promise<BlobEntry | null> {
  const entry = await copyBlobOut(store, dir, key)
  if (entry) copied.set(key, entry)
  return entry
}

/** Drops copied blobs the snapshot does not refer to (deleted before it); answers the rest. */
function keepReferenced(dir: string, snapshot: Snapshot, copied: Map<string, BlobEntry>): BlobEntry[] {
  const referenced = new Set(snapshot.refs.map((ref) => ref.key))
  const kept: BlobEntry[] = []
  for (const [key, entry] of copied) {
    if (referenced.has(key)) kept.push(entry)
    else rmSync(backupBlobPath(dir, key), { force: true })
  }
  return kept.sort((a, b) => a.key.localeCompare(b.key))
}

async function explainMissing(config: Config, missing: MissingBlob[]): Promise<MissingBlob[]> {
  if (missing.length === 0) return []
  const live = new Set((await liveRefs(config)).map((ref) => ref.key))
  return missing.map(({ key }) => ({
    key,
    reason: live.has(key)
      ? 'not in the blob store although a row refers to it (broken before the backup)'
      : 'removed after the snapshot: its file was revised or deleted while the backup ran',
  }))
}

/** A blob whose bytes differ from the sha256 its row records is reported (damaged in the store). */
function checkHashes(snapshot: Snapshot, copied: Map<string, BlobEntry>): MissingBlob[] {
  const bad: MissingBlob[] = []
  for (const ref of snapshot.refs) {
    const entry = copied.get(ref.key)
    if (entry && ref.sha256 && entry.sha256 !== ref.sha256)
      bad.push({ key: ref.key, reason: `sha256 ${entry.sha256} differs from the row's ${ref.sha256}` })
  }
  return bad
}

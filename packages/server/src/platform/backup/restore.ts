// `tessera-server restore`: a backup into an EMPTY data dir / database, every blob checked against the
// manifest's sha256 before anything is written and again as it is stored.
import { execFile } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { type BlobStore, openBlobStore } from '../blobs/index.ts'
import type { Config } from '../config.ts'
import { migrate, mismatchedDialect, openDatabase } from '../db/index.ts'
import { migrationList } from '../db/migrations/index.ts'
import { makePrivateDir, PRIVATE_FILE_MODE } from '../file-modes.ts'
import { BackupError, findPgTool } from './backup.ts'
import { copyBlobIn, hashBackupBlob } from './blob-copy.ts'
import { type Manifest, readManifest, SQLITE_FILE } from './manifest.ts'
import { pgToolEnv } from './snapshot.ts'

const run = promisify(execFile)

export interface RestoreOptions {
  config: Config
  from: string
  say?: (line: string) => void
}

export async function restore(options: RestoreOptions): Promise<Manifest> {
  const { config, from } = options
  const say = options.say ?? (() => {})
  const manifest = checkedManifest(config, from)
  say(`checking ${manifest.blobs.length} blobs against the manifest`)
  for (const entry of manifest.blobs) {
    const actual = await hashBackupBlob(from, entry.key).catch(() => null)
    if (actual?.sha256 !== entry.sha256 || actual.size !== entry.size)
      throw new BackupError(`blob ${entry.key} in the backup is missing or damaged (sha256 differs)`)
  }
  const store = await openBlobStore(config.storageUrl)
  try {
    await requireEmptyStore(config, store, manifest)
    // checkedManifest made sure the backup is of the configured database.
    if (config.databaseUrl) await restorePostgres(config.databaseUrl, from, manifest)
    else restoreSqlite(config, from)
    say(`database restored; storing ${manifest.blobs.length} blobs`)
    for (const entry of manifest.blobs) await copyBlobIn(store, from, entry)
  } finally {
    await store.close()
  }
  await settleRestored(config)
  return manifest
}

function checkedManifest(config: Config, from: string): Manifest {
  let manifest: Manifest
  try {
    manifest = readManifest(from)
  } catch (error) {
    throw new BackupError((error as Error).message)
  }
  const configured = mismatchedDialect(manifest.dialect, config.databaseUrl)
  if (configured !== null)
    throw new BackupError(
      `the backup is of a ${manifest.dialect} database; this configuration uses ${configured}`,
    )
  if (!migrationList.some((m) => m.name === manifest.migration))
    throw new BackupError(
      `the backup's schema (${manifest.migration}) is newer than this server's: upgrade first`,
    )
  return manifest
}

/** Refuses a store that holds any of the backup's keys, or a local blob folder with anything in it. */
async function requireEmptyStore(config: Config, store: BlobStore, manifest: Manifest): Promise<void> {
  const local = new URL(config.storageUrl)
  if (local.protocol === 'file:') {
    const dir = decodeURIComponent(local.pathname)
    if (existsSync(dir) && readdirSync(dir).some((entry) => entry !== '.tmp'))
      throw new BackupError(`the blob folder ${dir} is not empty`)
  }
  for (const entry of manifest.blobs) {
    if ((await store.size(entry.key)) !== null)
      throw new BackupError(`the blob store already holds ${entry.key}: restore into an empty one`)
  }
}

function restoreSqlite(config: Config, from: string): void {
  const target = path.join(config.dataDir, SQLITE_FILE)
  if (existsSync(target)) throw new BackupError(`${target} exists: restore into an empty data dir`)
  makePrivateDir(config.dataDir)
  copyFileSync(path.join(from, SQLITE_FILE), target)
  chmodSync(target, PRIVATE_FILE_MODE)
}

/**
 * pg_restore into the dump's schema, which must be absent or empty in the target database. The
 * schema is created here if missing and the dump's own CREATE SCHEMA entry is left out (it would
 * fail on an existing one, always so for `public`).
 */
async function restorePostgres(url: string, from: string, manifest: Manifest): Promise<void> {
  const pgRestore = findPgTool('pg_restore')
  const schema = manifest.schema ?? 'public'
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new BackupError(`bad schema name ${schema} in the manifest`)
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ n: string }>(
      'select count(*) as n from information_schema.tables where table_schema = $1',
      [schema],
    )
    if (Number(rows[0]?.n) > 0) throw new BackupError(`schema ${schema} of the target database is not empty`)
    await client.query(`create schema if not exists ${schema}`)
  } finally {
    await client.end()
  }
  await runPgRestore(pgRestore, url, path.join(from, manifest.database))
}

async function runPgRestore(pgRestore: string, url: string, dump: string): Promise<void> {
  const failed = (error: Error & { stderr?: string }): never => {
    throw new BackupError(`pg_restore failed: ${error.stderr || error.message}`)
  }
  const { stdout } = await run(pgRestore, ['--list', dump], { maxBuffer: 64 * 1024 * 1024 }).catch(failed)
  const entries = stdout.split('\n').filter((line) => !/ SCHEMA - /.test(line))
  // Beside the temp files, not in the backup folder, which may be read-only.
  const tmp = mkdtempSync(path.join(tmpdir(), 'tessera-restore-'))
  const list = path.join(tmp, 'toc.list')
  writeFileSync(list, entries.join('\n'), { mode: PRIVATE_FILE_MODE })
  const tool = pgToolEnv(url)
  try {
    const options = ['--no-owner', '--no-privileges', '--exit-on-error', `--use-list=${list}`]
    await run(pgRestore, [...options, `--dbname=${tool.url}`, dump], {
      env: tool.env,
      maxBuffer: 16 * 1024 * 1024,
    }).catch(failed)
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

/**
 * The schema brought up to date, and work the backed-up instance held in flight handed back: its
 * workers are gone, so deliveries and conversions leased to them are due at once, not after their
 * leases run out.
 */
async function settleRestored(config: Config): Promise<void> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
  try {
    await migrate(db)
    const now = Date.now()
    await db.kysely
      .updateTable('deliveries')
      .set({
        status: 'pending',
        leased_by: null,
        lease_expires_at: null,
        next_attempt_at: now,
        updated_at: now,
      })
      .where('status', '=', 'delivering')
      .execute()
    await db.kysely
      .updateTable('jobs')
      .set({ state: 'queued', leased_by: null, lease_until: null, run_at: now, updated_at: now })
      .where('state', '=', 'running')
      .execute()
  } finally {
    await db.close()
  }
}

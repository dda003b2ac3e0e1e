// Database snapshots for a backup, and the blob references they hold.
//
// SQLite: the online backup API copies the database into the backup folder while the server keeps
// writing. PostgreSQL: pg_dump (custom format) under a snapshot this process exports, so the blob
// references and counts read here are exactly those of the dump.
import { execFile } from 'node:child_process'
import { chmodSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import SqliteDatabase from 'better-sqlite3'
import pg from 'pg'
import { PRIVATE_FILE_MODE } from '../file-modes.ts'
import { COUNTED_TABLES, PG_DUMP_FILE, SQLITE_FILE } from './manifest.ts'

const run = promisify(execFile)

/** A blob a row refers to, and the sha256 the row records for it. */
export interface BlobRef {
  key: string
  sha256: string
}

export interface Snapshot {
  refs: BlobRef[]
  counts: Record<string, number>
  migration: string
  schema?: string
  database: string
}

type Query = (text: string) => Promise<Record<string, unknown>[]>

/** sqlite3_backup_step(-1)-like: every page in one step (see snapshotSqlite). */
const ALL_PAGES = 0x7fffffff

async function blobRefs(query: Query): Promise<BlobRef[]> {
  const rows = await query('select blob_key, sha256, optimized_key, optimized_sha256 from files')
  const refs: BlobRef[] = []
  for (const row of rows) {
    refs.push({ key: String(row.blob_key), sha256: String(row.sha256) })
    if (row.optimized_key) refs.push({ key: String(row.optimized_key), sha256: String(row.optimized_sha256) })
  }
  return [...refs, ...(await thumbnailRefs(query)), ...(await revisionRefs(query))]
}

/** Conversions' thumbnails (a database from before 0012_thumbnails has none). */
async function thumbnailRefs(query: Query): Promise<BlobRef[]> {
  const [migrated] = await query("select name from kysely_migration where name = '0012_thumbnails'")
  if (!migrated) return []
  const rows = await query(
    'select thumbnail_key, thumbnail_sha256 from files where thumbnail_key is not null',
  )
  return rows.map((row) => ({ key: String(row.thumbnail_key), sha256: String(row.thumbnail_sha256) }))
}

/**
 * The originals of kept earlier revisions. Pruned ones are left out: their blobs are being removed.
 * A database not yet migrated to 0018_file_revisions has none (and no table to ask).
 */
async function revisionRefs(query: Query): Promise<BlobRef[]> {
  const [migrated] = await query("select name from kysely_migration where name = '0018_file_revisions'")
  if (!migrated) return []
  const rows = await query('select blob_key, sha256 from file_revisions where pruned_at is null')
  return rows.map((row) => ({ key: String(row.blob_key), sha256: String(row.sha256) }))
}

async function describe(query: Query): Promise<Omit<Snapshot, 'database' | 'schema'>> {
  const counts: Record<string, number> = {}
  for (const table of COUNTED_TABLES) {
    const [row] = await query(`select count(*) as n from ${table}`)
    counts[table] = Number(row?.n ?? 0)
  }
  const [last] = await query('select name from kysely_migration order by name desc limit 1')
  return { refs: await blobRefs(query), counts, migration: String(last?.name ?? '') }
}

function sqliteQuery(database: SqliteDatabase.Database): Query {
  return async (text) => database.prepare(text).all() as Record<string, unknown>[]
}

/** The live database's blob references (SQLite). */
export async function liveSqliteRefs(dataDir: string): Promise<BlobRef[]> {
  const database = new SqliteDatabase(path.join(dataDir, SQLITE_FILE), { fileMustExist: true })
  database.pragma('busy_timeout = 5000')
  try {
    return await blobRefs(sqliteQuery(database))
  } finally {
    database.close()
  }
}

/**
 * Copies the SQLite database into `dir` with the online backup API. Every page goes in ONE step:
 * one read transaction, so a consistent snapshot, which WAL lets writers run beside. (Copied in
 * small steps, a write by another connection between two steps restarts the copy; under steady
 * writes it might never end.) The copy is switched to a rollback journal: one self-contained file.
 */
export async function snapshotSqlite(dataDir: string, dir: string): Promise<Snapshot> {
  const source = new SqliteDatabase(path.join(dataDir, SQLITE_FILE), { fileMustExist: true })
  source.pragma('busy_timeout = 5000')
  const target = path.join(dir, SQLITE_FILE)
  try {
    await source.backup(target, { progress: () => ALL_PAGES })
  } finally {
    source.close()
  }
  chmodSync(target, PRIVATE_FILE_MODE)
  const copy = new SqliteDatabase(target, { fileMustExist: true })
  try {
    copy.pragma('journal_mode = DELETE')
    return { ...(await describe(sqliteQuery(copy))), database: SQLITE_FILE }
  } finally {
    copy.close()
  }
}

/** libpq settings for pg_dump/pg_restore: the URL without its password, which goes by environment. */
export function pgToolEnv(url: string): { url: string; env: NodeJS.ProcessEnv } {
  const safe = new URL(url)
  const password = decodeURIComponent(safe.password)
  safe.password = ''
  // libpq reads `+` in a query as itself, not as a space (URLSearchParams writes spaces so).
  safe.search = [...safe.searchParams]
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    .join('&')
  return { url: safe.toString(), env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) } }
}

async function withPg<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

/** The live database's blob references (PostgreSQL). */
export function livePgRefs(url: string): Promise<BlobRef[]> {
  return withPg(url, (client) => blobRefs(async (text) => (await client.query(text)).rows))
}

/** pg_dump of the current schema into `dir`, under a snapshot shared with the reads here. */
export function snapshotPostgres(url: string, dir: string, pgDump: string): Promise<Snapshot> {
  return withPg(url, async (client) => {
    await client.query('begin isolation level repeatable read read only')
    try {
      const { rows } = await client.query<{ id: string; schema: string }>(
        'select pg_export_snapshot() as id, current_schema() as schema',
      )
      const { id, schema } = rows[0] ?? { id: '', schema: '' }
      const target = path.join(dir, PG_DUMP_FILE)
      const tool = pgToolEnv(url)
      const dumping = run(
        pgDump,
        [
          '--format=custom',
          `--snapshot=${id}`,
          `--schema=${schema}`,
          '--no-owner',
          `--file=${target}`,
          tool.url,
        ],
        { env: tool.env, maxBuffer: 16 * 1024 * 1024 },
      ).then(
        () => null,
        (error: Error & { stderr?: string }) => new Error(`pg_dump failed: ${error.stderr || error.message}`),
      )
      const described = await describe(async (text) => (await client.query(text)).rows)
      const failed = await dumping
      if (failed) throw failed
      chmodSync(target, PRIVATE_FILE_MODE)
      return { ...described, schema, database: PG_DUMP_FILE }
    } finally {
      await client.query('commit')
    }
  })
}

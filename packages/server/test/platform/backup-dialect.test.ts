// `tessera restore` refuses a backup of the other database, and a manifest that names no database
// it knows, before it touches anything (the checks live in platform/db/dialect.ts: backups choose
// nothing by dialect themselves).
import assert from 'node:assert/strict'
import { readdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { after, describe, test } from 'node:test'
import { loadConfig } from '../../src/app/config.ts'
import { restore } from '../../src/platform/backup/index.ts'
import { migrationList } from '../../src/platform/db/migrations/index.ts'
import { tempDir } from '../support/harness.ts'

const dirs: string[] = []

/** A backup folder holding only a manifest of `dialect` at the newest migration, and no blobs. */
function backupOf(dialect: string): string {
  const dir = tempDir('tessera-backup-dialect-')
  dirs.push(dir)
  const manifest = {
    format: 1,
    version: 'test',
    createdAt: new Date().toISOString(),
    dialect,
    migration: migrationList.at(-1)?.name,
    database: 'probe',
    counts: {},
    blobs: [],
    missing: [],
  }
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest))
  return dir
}

/** A configuration whose data folder is new and empty (SQLite), or that names a PostgreSQL URL. */
function configFor(databaseUrl?: string) {
  const dataDir = tempDir('tessera-restore-target-')
  dirs.push(dataDir)
  return loadConfig({
    TESSERA_DATA_DIR: dataDir,
    ...(databaseUrl ? { TESSERA_DATABASE_URL: databaseUrl } : {}),
  })
}

describe('restore and the dialect of a backup', () => {
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  test('a SQLite backup into a PostgreSQL configuration is refused, naming both', async () => {
    // Nothing listens on port 1: the refusal comes before any connection.
    const config = configFor('postgres://nobody@127.0.0.1:1/none')
    await assert.rejects(restore({ config, from: backupOf('sqlite') }), {
      message: 'the backup is of a sqlite database; this configuration uses postgres',
    })
  })

  test('a PostgreSQL backup into a SQLite configuration is refused and writes nothing', async () => {
    const config = configFor()
    await assert.rejects(restore({ config, from: backupOf('postgres') }), {
      message: 'the backup is of a postgres database; this configuration uses sqlite',
    })
    assert.deepEqual(readdirSync(config.dataDir), [])
  })

  test('a manifest naming another database is damaged', async () => {
    await assert.rejects(restore({ config: configFor(), from: backupOf('mysql') }), {
      message: 'manifest.json is incomplete or damaged',
    })
  })
})

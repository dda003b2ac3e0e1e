// Test harness: every storage test runs once per dialect — SQLite always, PostgreSQL when
// TESSERA_TEST_DATABASE_URL is set — each run in its own temp dir / schema so parallel runs never
// collide. No mocks: real databases, real HTTP.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { buildApp } from '../../src/app/app.ts'
import { loadConfig } from '../../src/app/config.ts'
import type { Config } from '../../src/platform/config.ts'
import { type Db, type Dialect, migrate, openDatabase } from '../../src/platform/db/index.ts'
import { type InstanceKeys, loadInstanceKeys } from '../../src/platform/keys.ts'

export interface DialectUnderTest {
  name: Dialect
  /** A fresh, migrated (up to `migrateTo`, default all), empty database, and how to drop it. */
  open(migrateTo?: string): Promise<{
    db: Db
    dataDir: string
    databaseUrl: string | undefined
    pgSchema?: string
    drop(): Promise<void>
  }>
}

export function tempDir(prefix = 'tessera-test-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix))
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`
}

/** A failed migration closes the database: an open pool would keep the test file from ending. */
async function migrateOrClose(db: Awaited<ReturnType<typeof openDatabase>>, migrateTo?: string) {
  try {
    await migrate(db, migrateTo)
  } catch (error) {
    await db.close().catch(() => {})
    throw error
  }
}

export function dialects(): DialectUnderTest[] {
  const list: DialectUnderTest[] = [
    {
      name: 'sqlite',
      async open(migrateTo) {
        const dataDir = tempDir()
        const db = await openDatabase({ databaseUrl: undefined, dataDir })
        await migrateOrClose(db, migrateTo)
        return {
          db,
          dataDir,
          databaseUrl: undefined,
          async drop() {
            await db.close().catch(() => {})
            rmSync(dataDir, { recursive: true, force: true })
          },
        }
      },
    },
  ]
  const url = process.env.TESSERA_TEST_DATABASE_URL
  if (url) {
    list.push({
      name: 'postgres',
      async open(migrateTo) {
        const dataDir = tempDir()
        const pgSchema = uniqueName('t')
        const db = await openDatabase({ databaseUrl: url, dataDir, pgSchema })
        await migrateOrClose(db, migrateTo)
        return {
          db,
          dataDir,
          databaseUrl: url,
          pgSchema,
          async drop() {
            await db.close().catch(() => {})
            const client = new pg.Client({ connectionString: url })
            await client.connect()
            await client.query(`drop schema if exists ${pgSchema} cascade`)
            await client.end()
            rmSync(dataDir, { recursive: true, force: true })
          },
        }
      },
    })
  }
  return list
}

let sharedKeys: Promise<InstanceKeys> | undefined
/** One generated key pair per test process (RSA generation is slow), held in memory only. */
export function testKeys(): Promise<InstanceKeys> {
  sharedKeys ??= (async () => {
    const dataDir = tempDir('tessera-keys-')
    try {
      return await loadInstanceKeys({ privateKeyFile: undefined, dataDir })
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })()
  return sharedKeys
}

export function testConfig(dataDir: string, overrides: Partial<Config> = {}): Config {
  return loadConfig(
    { TESSERA_DATA_DIR: dataDir, TESSERA_LOG_LEVEL: 'silent', TESSERA_WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
    overrides,
  )
}

/** Collects log lines written by the app. */
export class LogCapture extends Writable {
  readonly lines: string[] = []
  override _write(chunk: Buffer, _enc: string, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean))
    done()
  }
}

export interface TestApp {
  app: FastifyInstance
  db: Db
  config: Config
  close(): Promise<void>
}

/**
 * A migrated app on a fresh database of `dialect`. `overrides` replace config values; e.g.
 * `{ storageUrl: (await startS3()).storageUrl }` stores blobs in s3rver instead of the temp dir.
 */
export async function startApp(
  dialect: DialectUnderTest,
  overrides: Partial<Config> = {},
  options: { logStream?: LogCapture; conversions?: boolean; workers?: boolean } = {},
): Promise<TestApp> {
  const opened = await dialect.open()
  const config = testConfig(opened.dataDir, {
    databaseUrl: opened.databaseUrl,
    ...(options.logStream ? { logLevel: 'info' } : {}),
    ...overrides,
  })
  // Conversions only where a test asks: elsewhere uploads hold placeholder bytes, and child
  // processes converting them would only add load and state changes the test does not look at.
  const app = await buildApp(config, {
    db: opened.db,
    keys: await testKeys(),
    logStream: options.logStream,
    conversions: options.conversions ?? false,
    ...(options.workers === false ? { workers: false } : {}),
  })
  await app.ready()
  return {
    app,
    db: opened.db,
    config,
    async close() {
      await app.close()
      await opened.drop()
    },
  }
}

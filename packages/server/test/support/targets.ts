// Storage targets for tests that run the real `tessera` binary: the environment that points a child
// process at a fresh SQLite data dir or PostgreSQL schema, and the same database opened here so the
// test can emit events into it and inspect it.
import { rmSync } from 'node:fs'
import pg from 'pg'
import { type Db, type Dialect, openDatabase } from '../../src/platform/db/index.ts'
import { tempDir, uniqueName } from './harness.ts'

export interface ProcessTarget {
  name: Dialect
  /** Environment for `tessera` child processes. */
  env: Record<string, string>
  /** The same database, opened in the test process (call after a `tessera` process migrated it). */
  open(): Promise<Db>
  cleanup(): Promise<void>
}

export type TargetFactory = { name: Dialect; create(): Promise<ProcessTarget> }

export function processTargets(): TargetFactory[] {
  const list: TargetFactory[] = [
    {
      name: 'sqlite',
      async create() {
        const dataDir = tempDir()
        return {
          name: 'sqlite',
          env: { TESSERA_DATA_DIR: dataDir },
          open: () => openDatabase({ databaseUrl: undefined, dataDir }),
          async cleanup() {
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
      async create() {
        const schema = uniqueName('proc')
        const client = new pg.Client({ connectionString: url })
        await client.connect()
        await client.query(`create schema ${schema}`)
        await client.end()
        // The schema travels in the URL, so child processes and their LISTEN connections use it too.
        const withSchema = new URL(url)
        withSchema.searchParams.set('options', `-c search_path=${schema}`)
        const dataDir = tempDir()
        return {
          name: 'postgres',
          env: { TESSERA_DATA_DIR: dataDir, TESSERA_DATABASE_URL: withSchema.toString() },
          open: () => openDatabase({ databaseUrl: withSchema.toString(), dataDir }),
          async cleanup() {
            const admin = new pg.Client({ connectionString: url })
            await admin.connect()
            await admin.query(`drop schema if exists ${schema} cascade`)
            await admin.end()
            rmSync(dataDir, { recursive: true, force: true })
          },
        }
      },
    })
  }
  return list
}

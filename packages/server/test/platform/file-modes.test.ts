// Owner-only files on disk: with umask 022, a fresh data dir after an upload and a conversion holds
// no file or folder that group or others can read (database, WAL, SHM, key, blobs, blob temp
// folder); the conversion's temp folder and files are private; an existing data dir that is wider
// is tightened at start with a log line. Every dialect (PostgreSQL: key and blobs in the data dir).
import assert from 'node:assert/strict'
import { chmodSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs'
import path from 'node:path'
import { Readable } from 'node:stream'
import { describe, type TestContext, test } from 'node:test'
import { buildApp } from '../../src/app/app.ts'
import { ConversionRun } from '../../src/modules/conversion/runner.ts'
import { openBlobStore } from '../../src/platform/blobs/index.ts'
import { signedIn } from '../support/api.ts'
import { uploadFile } from '../support/files.ts'
import { dialects, LogCapture, tempDir, testConfig } from '../support/harness.ts'
import { stlCube } from '../support/models.ts'
import { until } from '../support/receiver.ts'

process.umask(0o022)

/** A fresh temp dir, removed once the test ends. */
function scratch(t: TestContext): string {
  const dir = tempDir()
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Every path under `dir` (itself included) that group or others can access. */
function wideEntries(dir: string): string[] {
  const out: string[] = []
  const walk = (target: string) => {
    const stats = statSync(target)
    if ((stats.mode & 0o077) !== 0) out.push(`${target} ${(stats.mode & 0o777).toString(8)}`)
    if (stats.isDirectory()) for (const entry of readdirSync(target)) walk(path.join(target, entry))
  }
  walk(dir)
  return out
}

for (const dialect of dialects()) {
  describe(`owner-only files on ${dialect.name}`, () => {
    test('a fresh data dir after an upload and a conversion: nothing group/other-readable', async (t) => {
      const opened = await dialect.open()
      const dataDir = path.join(scratch(t), 'data')
      const config = testConfig(dataDir, { databaseUrl: opened.databaseUrl })
      // SQLite: the app opens its own database in the data dir; PostgreSQL: the test's schema.
      const app = await buildApp(config, dialect.name === 'postgres' ? { db: opened.db } : {})
      try {
        await app.ready()
        const user = await signedIn(app, 'modes')
        const file = await uploadFile(app, user.headers, { name: 'cube.stl', data: stlCube('cube', 0.05) })
        await until(
          'conversion',
          async () => {
            const res = await app.inject({ method: 'GET', url: `/file/${file._id}`, headers: user.headers })
            const state = res.json().file.state as string
            return state === 'ready' || state === 'error' ? state : undefined
          },
          60_000,
        )
        const names = readdirSync(dataDir)
        assert.ok(names.includes('jwt-private.pem') && names.includes('blobs'), names.join(', '))
        if (dialect.name === 'sqlite') {
          for (const name of ['tessera.db', 'tessera.db-wal', 'tessera.db-shm'])
            assert.ok(names.includes(name), name)
        }
        assert.deepEqual(wideEntries(dataDir), [])
      } finally {
        await app.close()
        await opened.drop()
      }
    })
  })
}

describe('owner-only files outside the data dir, and repair', () => {
  test('the conversion temp folder is 0700 and its files 0600', async (t) => {
    const blobs = await openBlobStore(`file://${scratch(t)}`)
    await blobs.put('in/cube.stl', Readable.from([stlCube('cube', 0.05)]))
    const run = new ConversionRun({
      blobs,
      blobKey: 'in/cube.stl',
      fileName: 'cube.stl',
      timeoutMs: 60_000,
      maxMemoryBytes: 512 * 1024 * 1024,
      onProgress: () => {},
    })
    const outcome = await run.outcome
    try {
      assert.equal(outcome.kind, 'converted', JSON.stringify(outcome))
      if (outcome.kind !== 'converted') return
      assert.deepEqual(wideEntries(path.dirname(outcome.glbPath)), [])
    } finally {
      await run.dispose()
    }
  })

  test('a wider existing data dir is tightened at start, with a log line', async (t) => {
    const [sqlite] = dialects()
    assert.ok(sqlite)
    const dataDir = path.join(scratch(t), 'data')
    const first = await buildApp(testConfig(dataDir), { workers: false })
    await first.close()
    chmodSync(dataDir, 0o755)
    chmodSync(path.join(dataDir, 'tessera.db'), 0o644)
    chmodSync(path.join(dataDir, 'jwt-private.pem'), 0o644)
    const log = new LogCapture()
    const second = await buildApp(testConfig(dataDir, { logLevel: 'info' }), {
      workers: false,
      logStream: log,
    })
    try {
      assert.deepEqual(wideEntries(dataDir), [])
      assert.ok(existsSync(path.join(dataDir, 'tessera.db')))
      const line = log.lines.find((l) => l.includes('group/other access removed'))
      assert.ok(line, log.lines.join('\n'))
      assert.match(line, /tessera\.db/)
    } finally {
      await second.close()
    }
  })
})

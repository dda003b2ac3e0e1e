// tessera backup / restore on every dialect: an online backup taken DURING uploads and attribute
// writes restores into a fresh data dir (PostgreSQL: a fresh database), every file of the backup
// downloads with its sha256 (an earlier revision too), and the deliveries pending for a dead
// receiver at backup time are delivered once a live receiver answers on that URL.
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import path from 'node:path'
import { after, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { openDatabase } from '../../src/platform/db/index.ts'
import { statusCounts, until } from '../support/emitter.ts'
import { tempDir, uniqueName } from '../support/harness.ts'
import {
  createUser,
  downloadSha256,
  registerHook,
  signIn,
  upload,
  writeAttributes,
} from '../support/http-client.ts'
import { runCli, type Server, startServer } from '../support/process.ts'
import { Receiver } from '../support/receiver.ts'
import { processTargets } from '../support/targets.ts'

/** A port nothing listens on (yet): the dead receiver, later brought to life. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** PostgreSQL: an empty database beside the test one, with the same search_path. */
async function freshDatabase(sourceUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.TESSERA_TEST_DATABASE_URL ?? ''
  const name = uniqueName('restore')
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(sourceUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: base })
      await client.connect()
      await client.query(`drop database if exists ${name} with (force)`)
      await client.end()
    },
  }
}

const SMALL_HOUSE = fileURLToPath(new URL('../fixtures/conversion/small-house.ifc', import.meta.url))
const RETRIES = Array.from({ length: 50 }, (_, i) => (i === 0 ? '0s' : '1s')).join(',')

for (const factory of processTargets()) {
  describe(`tessera backup and restore on ${factory.name}`, () => {
    const cleanups: Array<() => Promise<void> | void> = []
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup()
    })

    test('an online backup during writes restores whole: files, hashes, pending deliveries', async () => {
      const target = await factory.create()
      cleanups.push(() => target.cleanup())
      const settings = {
        TESSERA_WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        TESSERA_WEBHOOK_RETRY_SCHEDULE: RETRIES,
        TESSERA_WEBHOOK_TIMEOUT: '2s',
        TESSERA_LOG_LEVEL: 'warn',
      }
      const env: Record<string, string> = { ...target.env, ...settings }
      const servers: Server[] = []
      cleanups.push(() => {
        for (const s of servers) if (s.child.exitCode === null) s.child.kill('SIGKILL')
      })
      const server = await startServer({ ...env, TESSERA_LOG_LEVEL: 'info' })
      servers.push(server)
      const user = await createUser(env)
      const client = await signIn(server.baseUrl, user)
      const port = await freePort()
      const hookUrl = `http://127.0.0.1:${port}/hook`
      const hookId = await registerHook(server.baseUrl, client, 'attribute_updated', hookUrl)

      // A file with an earlier revision: that revision's original must be backed up too.
      const firstRevision = randomBytes(999)
      const revised = await upload(server.baseUrl, client, 'revised.stl', firstRevision)
      assert.equal((await upload(server.baseUrl, client, 'revised.stl', randomBytes(1000))).id, revised.id)

      // A converted model: its optimized GLB and its thumbnail must be backed up too.
      const model = await upload(server.baseUrl, client, 'small-house.ifc', readFileSync(SMALL_HOUSE))
      assert.ok(model.id, 'the model uploaded')
      await until('the model converted, with a thumbnail', async () => {
        const res = await fetch(`${server.baseUrl}/file/${model.id}`, { headers: client.headers })
        const { file } = (await res.json()) as { file: { state: string; thumbnailUrl: string | null } }
        return file.state === 'ready' && file.thumbnailUrl !== null
      })

      // Writes in a loop while the backup runs: uploads, and attribute writes that queue deliveries.
      const uploaded: string[] = []
      let writing = true
      let failures = 0
      const writer = (async () => {
        for (let i = 0; writing; i += 1) {
          const file = await upload(server.baseUrl, client, `part-${i}.stl`, randomBytes(2048 + i))
          if (file.id === null) failures += 1
          else uploaded.push(file.id)
          const id = uploaded[Math.floor(Math.random() * uploaded.length)]
          if (id && (await writeAttributes(server.baseUrl, client, id, { [`n${i}`]: { i } })) !== 200)
            failures += 1
        }
      })()
      await until('a few writes', async () => uploaded.length >= 3, 60_000)
      const dir = path.join(tempDir(), 'backup')
      cleanups.push(() => rmSync(path.dirname(dir), { recursive: true, force: true }))
      const backedUp = await runCli(['backup', '--to', dir], env)
      const afterBackup = uploaded.length
      await until('writes after the backup', async () => uploaded.length >= afterBackup + 2, 60_000)
      writing = false
      await writer
      assert.equal(backedUp.code, 0, backedUp.stderr)
      assert.equal(failures, 0)

      const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'))
      assert.deepEqual(manifest.missing, [])
      assert.ok(manifest.counts.files >= 3, JSON.stringify(manifest.counts))
      assert.ok(manifest.counts.files < uploaded.length, 'writes after the backup are not in it')
      assert.equal(statSync(dir).mode & 0o777, 0o700)
      for (const entry of readdirSync(dir, { recursive: true })) {
        const stats = statSync(path.join(dir, String(entry)))
        assert.equal(stats.mode & 0o777, stats.isDirectory() ? 0o700 : 0o600, String(entry))
      }
      server.child.kill('SIGTERM')
      assert.equal(await server.exited, 0)

      // Restore into a fresh data dir (PostgreSQL: a fresh database too); a second restore is refused.
      const restoredDir = tempDir()
      cleanups.push(() => rmSync(restoredDir, { recursive: true, force: true }))
      const restoredEnv: Record<string, string> = { ...env, TESSERA_DATA_DIR: restoredDir }
      if (env.TESSERA_DATABASE_URL) {
        const fresh = await freshDatabase(env.TESSERA_DATABASE_URL)
        cleanups.push(() => fresh.drop())
        restoredEnv.TESSERA_DATABASE_URL = fresh.url
      }
      const restored = await runCli(['restore', '--from', dir], restoredEnv)
      assert.equal(restored.code, 0, restored.stderr + restored.stdout)
      const again = await runCli(['restore', '--from', dir], restoredEnv)
      assert.equal(again.code, 2)
      assert.match(again.stderr, /not empty|exists|already holds/)

      const db = await openDatabase({ databaseUrl: restoredEnv.TESSERA_DATABASE_URL, dataDir: restoredDir })
      cleanups.push(() => db.close())
      const files = await db.kysely.selectFrom('files').select(['id', 'sha256']).execute()
      assert.equal(files.length, manifest.counts.files)
      const pending = await statusCounts(db, hookId)
      assert.ok((pending.pending ?? 0) > 0, JSON.stringify(pending))

      // A live receiver on the dead URL, a server on the restored data: all of it comes back.
      const receiver = new Receiver()
      await receiver.start(port)
      cleanups.push(() => receiver.stop())
      const revived = await startServer({ ...restoredEnv, TESSERA_LOG_LEVEL: 'info' })
      servers.push(revived)
      const again2 = await signIn(revived.baseUrl, user)
      for (const file of files)
        assert.equal(await downloadSha256(revived.baseUrl, again2, file.id), file.sha256)
      const earlier = await fetch(`${revived.baseUrl}/file/${revised.id}/revisions/0/download`, {
        headers: again2.headers,
      })
      assert.equal(earlier.status, 200)
      assert.ok(Buffer.from(await earlier.arrayBuffer()).equals(firstRevision))
      const [stored] = await db.kysely
        .selectFrom('files')
        .select(['thumbnail_sha256'])
        .where('id', '=', model.id)
        .execute()
      const thumbnail = await fetch(`${revived.baseUrl}/file/${model.id}/thumbnail`, {
        headers: again2.headers,
      })
      assert.equal(thumbnail.status, 200, 'the thumbnail came back with the backup')
      const thumbnailBytes = Buffer.from(await thumbnail.arrayBuffer())
      assert.equal(createHash('sha256').update(thumbnailBytes).digest('hex'), stored?.thumbnail_sha256)
      const glb = await fetch(`${revived.baseUrl}/file/${model.id}/optimized`, { headers: again2.headers })
      assert.equal(glb.status, 200, 'the optimized GLB came back with the backup')
      await glb.arrayBuffer()
      await until(
        'the pending deliveries delivered',
        async () => {
          const counts = await statusCounts(db, hookId)
          return counts.pending === undefined && counts.delivering === undefined
        },
        90_000,
      )
      const counts = await statusCounts(db, hookId)
      assert.deepEqual(Object.keys(counts), ['succeeded'], JSON.stringify(counts))
      assert.ok(receiver.at('/hook').length >= (pending.pending ?? 0))
      revived.child.kill('SIGTERM')
      assert.equal(await revived.exited, 0)
    })
  })
}

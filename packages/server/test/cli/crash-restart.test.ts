// Crash leftovers (hardening batch 3), with the real `tessera serve` on every dialect: SIGKILL in
// the middle of a conversion and in the middle of an upload, restart, and the file is converted
// again at once (not after the ~10-minute lease) and no temp file or folder is left.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Db } from '../../src/platform/db/index.ts'
import { stlCube } from '../support/models.ts'
import { runCli, type Server, startServer } from '../support/process.ts'
import { until } from '../support/receiver.ts'
import { type ProcessTarget, processTargets } from '../support/targets.ts'

async function httpUser(env: Record<string, string>, baseUrl: string): Promise<Record<string, string>> {
  const name = `crash${Math.random().toString(36).slice(2, 10)}`
  const args = ['accounts', 'create', '--email', `${name}@example.com`, '--username', name]
  assert.equal((await runCli(args, env, 'a long password\n')).code, 0)
  const signed = await runCli(['token', 'sign', '--account', name], env)
  const authorization = `Bearer ${signed.stdout.trim()}`
  const res = await fetch(`${baseUrl}/account/session`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
  })
  const { jwt } = (await res.json()) as { jwt: string }
  return { authorization, 'x-service-session': jwt }
}

function childrenOf(pid: number | undefined): number[] {
  try {
    const out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
    return out
      .split('\n')
      .map((line) => Number.parseInt(line.trim(), 10))
      .filter((n) => Number.isInteger(n))
  } catch {
    return []
  }
}

/** Conversion temp folders of the process `pid` (named `tessera-convert-<host>-<pid>-…`). */
function conversionFolders(pid: number | undefined): string[] {
  return readdirSync(tmpdir()).filter(
    (name) => name.startsWith('tessera-convert-') && name.includes(`-${pid}-`),
  )
}

function tempBlobs(dataDir: string): string[] {
  try {
    return readdirSync(path.join(dataDir, 'blobs', '.tmp'))
  } catch {
    return []
  }
}

for (const factory of processTargets()) {
  describe(`crash leftovers with tessera serve on ${factory.name}`, () => {
    let target: ProcessTarget
    let env: Record<string, string>
    let server: Server
    let db: Db
    let headers: Record<string, string>
    before(async () => {
      target = await factory.create()
      // The default conversion budget: the lease is 10 min 30 s, far beyond what the test waits.
      env = { ...target.env, TESSERA_CONVERSION_TIMEOUT: '10m' }
      server = await startServer(env)
      db = await target.open()
      headers = await httpUser(env, server.baseUrl)
    })
    after(async () => {
      if (server.child.exitCode === null) server.child.kill('SIGKILL')
      await db?.close()
      await target.cleanup()
    })

    test('killed mid-conversion: the restarted process converts it again at once, no temp folder left', async () => {
      const form = new FormData()
      form.append('file', new Blob([stlCube('crash')]), 'crash.stl')
      const res = await fetch(`${server.baseUrl}/file/upload/`, { method: 'POST', headers, body: form })
      const id = ((await res.json()) as { file: { _id: string } }).file._id
      const pid = server.child.pid
      await until('a conversion process', async () => childrenOf(pid)[0], 30_000)
      assert.ok(conversionFolders(pid).length > 0, 'the conversion has its temp folder')
      server.child.kill('SIGKILL')
      await server.exited
      const job = await db.kysely
        .selectFrom('jobs')
        .selectAll()
        .where('file_id', '=', id)
        .executeTakeFirstOrThrow()
      assert.equal(job.state, 'running')

      const restarted = Date.now()
      server = await startServer(env)
      await until(
        'ready again',
        async () => {
          const file = await fetch(`${server.baseUrl}/file/${id}`, { headers })
          return ((await file.json()) as { file: { state: string } }).file.state === 'ready'
        },
        60_000,
      )
      const took = Date.now() - restarted
      assert.ok(took < 60_000 && Date.now() < Number(job.lease_until), `converted again after ${took} ms`)
      assert.deepEqual(conversionFolders(pid), [])
    })

    test('killed mid-upload: the restarted process removes the partial temp blob', async () => {
      const boundary = 'crash-boundary'
      const upload = request(`${server.baseUrl}/file/upload/`, {
        method: 'POST',
        headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
      })
      upload.on('error', () => {})
      upload.write(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.stl"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      )
      upload.write(Buffer.alloc(64 * 1024, 0x61))
      await until(
        'a partial temp blob',
        async () => tempBlobs(target.env.TESSERA_DATA_DIR ?? '').length > 0,
        20_000,
      )
      server.child.kill('SIGKILL')
      await server.exited
      upload.destroy()
      assert.ok(tempBlobs(target.env.TESSERA_DATA_DIR ?? '').length > 0)
      server = await startServer(env)
      await until(
        'temp blobs swept',
        async () => tempBlobs(target.env.TESSERA_DATA_DIR ?? '').length === 0,
        10_000,
      )
    })
  })
}

// Conversions in scale-out, with the real `tessera` binary on every dialect: `serve --no-workers`
// queues conversions and runs none; `tessera worker` runs them; a worker killed in the middle of a
// conversion loses nothing: its conversion process stops too, and another worker takes the job over
// (at once, its process being gone; see hardening-crash.test.ts), counting the lost run as an attempt.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { after, before, describe, test } from 'node:test'
import type { Db } from '../../src/platform/db/index.ts'
import { stlCube } from '../support/models.ts'
import { runCli, type Server, startServer, startWorker, type WorkerProcess } from '../support/process.ts'
import { sleep, until } from '../support/receiver.ts'
import { type ProcessTarget, processTargets } from '../support/targets.ts'

/** A signed-in account of the running server, over HTTP only. */
async function httpUser(env: Record<string, string>, baseUrl: string): Promise<Record<string, string>> {
  const name = `conv${Math.random().toString(36).slice(2, 10)}`
  const args = ['accounts', 'create', '--email', `${name}@example.com`, '--username', name]
  const created = await runCli(args, env, 'a long password\n')
  assert.equal(created.code, 0, created.stderr)
  const signed = await runCli(['token', 'sign', '--account', name], env)
  assert.equal(signed.code, 0, signed.stderr)
  const authorization = `Bearer ${signed.stdout.trim()}`
  const res = await fetch(`${baseUrl}/account/session`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
  })
  assert.equal(res.status, 200)
  const { jwt } = (await res.json()) as { jwt: string }
  return { authorization, 'x-service-session': jwt }
}

async function upload(baseUrl: string, headers: Record<string, string>, name: string, data: Buffer) {
  const form = new FormData()
  form.append('file', new Blob([data]), name)
  const res = await fetch(`${baseUrl}/file/upload/`, { method: 'POST', headers, body: form })
  const text = await res.text()
  assert.equal(res.status, 200, text)
  return (JSON.parse(text) as { file: { _id: string } }).file._id
}

async function fileState(baseUrl: string, headers: Record<string, string>, id: string) {
  const res = await fetch(`${baseUrl}/file/${id}`, { headers })
  assert.equal(res.status, 200)
  return ((await res.json()) as { file: { state: string; error: string } }).file
}

function childrenOf(pid: number | undefined): number[] {
  if (pid === undefined) return []
  try {
    const out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
    return out
      .split('\n')
      .map((line) => Number.parseInt(line.trim(), 10))
      .filter((n) => Number.isInteger(n))
  } catch {
    return [] // ps exits 1 when there is none
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

for (const factory of processTargets()) {
  describe(`conversions with tessera worker processes on ${factory.name}`, () => {
    let target: ProcessTarget
    let env: Record<string, string>
    let api: Server
    let db: Db
    let headers: Record<string, string>
    const workers: WorkerProcess[] = []

    before(async () => {
      target = await factory.create()
      // A short budget makes the lease (budget + margin) short, so a takeover comes quickly.
      env = { ...target.env, TESSERA_CONVERSION_TIMEOUT: '4s' }
      api = await startServer(env, ['--no-workers'])
      db = await target.open()
      headers = await httpUser(env, api.baseUrl)
    })
    after(async () => {
      for (const p of [api, ...workers]) if (p.child.exitCode === null) p.child.kill('SIGKILL')
      await db?.close()
      await target.cleanup()
    })

    test('serve --no-workers queues the conversion; tessera worker runs it', async () => {
      const id = await upload(api.baseUrl, headers, 'queued.stl', stlCube('queued'))
      await sleep(2500) // longer than a worker's idle poll
      assert.equal((await fileState(api.baseUrl, headers, id)).state, 'queued')
      const worker = await startWorker(env)
      workers.push(worker)
      await until('ready', async () => (await fileState(api.baseUrl, headers, id)).state === 'ready', 60_000)
      const glb = await fetch(`${api.baseUrl}/file/${id}/optimized`, { headers })
      assert.equal(glb.status, 200)
      assert.equal(glb.headers.get('content-type'), 'model/gltf-binary')
      await glb.arrayBuffer()
      worker.child.kill('SIGTERM')
      assert.equal(await worker.exited, 0, worker.output())
    })

    test('a worker killed mid-conversion: its process stops, another worker takes the job over', async () => {
      const first = await startWorker(env)
      workers.push(first)
      const id = await upload(api.baseUrl, headers, 'orphan.stl', stlCube('orphan'))
      // The conversion process is starting: the job is leased to `first`.
      const converter = await until(
        'a conversion process',
        async () => childrenOf(first.child.pid)[0],
        30_000,
      )
      first.child.kill('SIGKILL')
      await first.exited
      await until('the orphaned conversion process to stop', async () => !alive(converter), 10_000)
      const job = await db.kysely
        .selectFrom('jobs')
        .select(['state', 'attempts', 'lease_until'])
        .where('file_id', '=', id)
        .executeTakeFirstOrThrow()
      assert.deepEqual({ state: job.state, attempts: job.attempts }, { state: 'running', attempts: 1 })

      const second = await startWorker(env)
      workers.push(second)
      await until('ready', async () => (await fileState(api.baseUrl, headers, id)).state === 'ready', 60_000)
      // Hardening batch 3: the dead worker is known dead (its process is gone), so its job is taken
      // back at once instead of after the lease; the lost run still counts as an attempt.
      const done = await db.kysely
        .selectFrom('jobs')
        .select(['state', 'attempts', 'updated_at'])
        .where('file_id', '=', id)
        .executeTakeFirstOrThrow()
      assert.deepEqual({ state: done.state, attempts: done.attempts }, { state: 'done', attempts: 2 })
      assert.ok(Number(done.updated_at) > 0)
      second.child.kill('SIGTERM')
      assert.equal(await second.exited, 0, second.output())
    })
  })
}

// Chaos (`npm run chaos`, not part of `npm test`; minutes; loopback only). Two API processes
// (`tessera serve --no-workers`) and two workers (`tessera worker`) on one database (SQLite: one
// data dir shared by all four; PostgreSQL with TESSERA_TEST_DATABASE_URL: a fresh schema), a burst
// of attribute writes through both APIs (one `attribute_updated` event each) to a local receiver,
// and random SIGKILLs of servers and workers (each restarted at once), some landing on an upload
// in mid-stream or on a conversion in progress. At the end it checks: every committed event was
// delivered (duplicates at most what was in flight), no file stuck `queued`/`converting`, every file
// `queued`/`converting` had a live job at every look while settling (filesWithoutLiveConversion), no
// temp blob or conversion folder left, and the license pool never over-committed (sampled all along).
//
//   npm run chaos -- [--events 10000] [--kills 20] [--dialect sqlite|postgres|both] [--budget 600]
import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { filesWithoutLiveConversion } from '../packages/server/src/modules/files/index.ts'
import type { Db } from '../packages/server/src/platform/db/index.ts'
import { stlCube } from '../packages/server/test/support/models.ts'
import { cliAccount, startServer, startWorker } from '../packages/server/test/support/process.ts'
import { Sink } from '../packages/server/test/support/sink.ts'
import { type ProcessTarget, processTargets } from '../packages/server/test/support/targets.ts'
import { record } from './results.ts'

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '10000' },
    kills: { type: 'string', default: '20' },
    dialect: { type: 'string', default: 'both' },
    budget: { type: 'string', default: '600' },
    concurrency: { type: 'string', default: '16' },
  },
})
const EVENTS = Number(args.events)
const KILLS = Number(args.kills)
const BUDGET_MS = Number(args.budget) * 1000
const LICENSES = 5
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

type Role = 'api' | 'worker'
interface Proc {
  role: Role
  name: string
  child: ChildProcess
  exited: Promise<number | null>
  baseUrl?: string
}

class Cluster {
  readonly procs: Proc[] = []
  readonly deadPids: number[] = []
  readonly env: Record<string, string>

  constructor(env: Record<string, string>) {
    this.env = env
  }

  async start(role: Role, name: string): Promise<Proc> {
    const started = await launch(role, this.env)
    const proc: Proc = { role, name, child: started.child, exited: started.exited }
    if ('baseUrl' in started) proc.baseUrl = started.baseUrl
    const index = this.procs.findIndex((p) => p.name === name)
    if (index >= 0) this.procs[index] = proc
    else this.procs.push(proc)
    return proc
  }

  api(i: number): Proc {
    const apis = this.procs.filter((p) => p.role === 'api')
    return apis[i % apis.length] as Proc
  }

  /** SIGKILL and restart; answers when the replacement is up. */
  async kill(proc: Proc): Promise<void> {
    if (proc.child.pid) this.deadPids.push(proc.child.pid)
    proc.child.kill('SIGKILL')
    await proc.exited
    await this.start(proc.role, proc.name)
  }

  async stop(): Promise<void> {
    for (const p of this.procs) p.child.kill('SIGTERM')
    await Promise.all(this.procs.map((p) => p.exited))
  }
}

/**
 * Starts a process; on a loaded machine a start may miss the helper's 90 s window (the helper kills
 * that one): try again.
 */
async function launch(role: Role, env: Record<string, string>) {
  for (let attempt = 1; ; attempt++) {
    try {
      return role === 'api' ? await startServer(env, ['--no-workers']) : await startWorker(env)
    } catch (error) {
      if (attempt >= 4) throw error
    }
  }
}

async function signIn(env: Record<string, string>, baseUrl: string, name: string) {
  const { authToken } = await cliAccount(env, name)
  const authorization = `Bearer ${authToken}`
  const res = await fetch(`${baseUrl}/account/session`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
  })
  const { jwt } = (await res.json()) as { jwt: string }
  return { authorization, 'x-service-session': jwt }
}

async function upload(baseUrl: string, headers: Record<string, string>, name: string, data: Buffer) {
  const form = new FormData()
  form.append('file', new Blob([data]), name)
  const res = await fetch(`${baseUrl}/file/upload/`, { method: 'POST', headers, body: form })
  return ((await res.json()) as { file: { _id: string } }).file._id
}

/** Starts an upload that trickles and never ends (its server is about to be killed). */
function trickle(baseUrl: string, headers: Record<string, string>): () => void {
  const boundary = 'chaos'
  const req = request(`${baseUrl}/file/upload/`, {
    method: 'POST',
    headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
  })
  req.on('error', () => {})
  req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="t.stl"\r\n\r\n`)
  const timer = setInterval(() => req.write(Buffer.alloc(16 * 1024, 0x61)), 100)
  return () => {
    clearInterval(timer)
    req.destroy()
  }
}

interface Figures {
  committed: number
  delivered: number
  duplicates: number
  kills: number
  uploadsCut: number
  conversionsCut: number
  writesFailed: number
  maxLicenses: number
  seconds: number
}

async function chaos(target: ProcessTarget): Promise<Figures> {
  const sink = new Sink()
  await sink.start()
  const env = {
    ...target.env,
    TESSERA_WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    TESSERA_WEBHOOK_RETRY_SCHEDULE: '0s,1s,2s,5s,10s,20s,30s,60s',
    TESSERA_LICENSES: String(LICENSES),
    TESSERA_WEBHOOK_MANAGE_RATE: '1000',
  }
  const cluster = new Cluster(env)
  const started = Date.now()
  await cluster.start('api', 'api1')
  await cluster.start('api', 'api2')
  await cluster.start('worker', 'worker1')
  await cluster.start('worker', 'worker2')
  const db = await target.open()
  let maxLicenses = 0
  const sampler = setInterval(() => {
    licensesInUse(db)
      .then((n) => {
        maxLicenses = Math.max(maxLicenses, n)
      })
      .catch(() => {})
  }, 200)
  try {
    const headers = await signIn(env, cluster.api(0).baseUrl ?? '', `chaos${Date.now().toString(36)}`)
    const hook = await fetch(`${cluster.api(0).baseUrl}/webhook/`, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        event: 'attribute_updated',
        url: sink.url,
        secretToken: 'k7Qx-9vR2mWp4ZtL8bNc',
      }),
    })
    assert.equal(hook.status, 200, await hook.text())
    // A file whose conversion fails: its scene tree stays unknown, so any node ID may be written.
    const fileId = await upload(
      cluster.api(0).baseUrl ?? '',
      headers,
      'target.stl',
      Buffer.from('not a model'),
    )
    const figures = await burst(cluster, headers, fileId)
    await settle(db, sink, started)
    const committed = await countEvents(db, fileId)
    const missing = await undelivered(db, sink)
    assert.equal(missing, 0, `${missing} committed events not delivered`)
    assert.ok(maxLicenses <= LICENSES, `license pool over-committed: ${maxLicenses} > ${LICENSES}`)
    return {
      ...figures,
      committed,
      delivered: sink.unique.size,
      duplicates: sink.duplicates,
      maxLicenses,
      seconds: (Date.now() - started) / 1000,
    }
  } finally {
    clearInterval(sampler)
    await cluster.stop()
    checkTemp(target, cluster.deadPids)
    await db.close()
    await sink.stop()
  }
}

/** The write burst through both APIs, with the kills spread over it. */
async function burst(cluster: Cluster, headers: Record<string, string>, fileId: string) {
  let next = 0
  let writesFailed = 0
  const killAt = new Set(Array.from({ length: KILLS }, (_, k) => Math.floor(((k + 0.5) * EVENTS) / KILLS)))
  let kills = 0
  let uploadsCut = 0
  let conversionsCut = 0
  let killing: Promise<void> = Promise.resolve()
  const writer = async () => {
    while (next < EVENTS) {
      const i = next++
      if (killAt.has(i)) {
        const k = kills++
        killing = killing.then(async () => {
          const api = cluster.api(k)
          if (k % 3 === 0) {
            // An upload in mid-stream on the API about to die.
            const stop = trickle(api.baseUrl ?? '', headers)
            await sleep(300)
            await cluster.kill(api)
            stop()
            uploadsCut += 1
          } else if (k % 3 === 1) {
            // A conversion in progress on a worker.
            await upload(api.baseUrl ?? '', headers, `cube-${k}.stl`, stlCube(`cube${k}`, 1)).catch(() => '')
            await sleep(200)
            const worker = cluster.procs.filter((p) => p.role === 'worker')[k % 2] as Proc
            await cluster.kill(worker)
            conversionsCut += 1
          } else {
            await cluster.kill(cluster.procs[k % cluster.procs.length] as Proc)
          }
        })
      }
      // A write cut off by a kill is retried on the other API: committed or not, the database
      // knows, and a retry that commits twice is two events, each to be delivered.
      for (let attempt = 0; attempt < 5; attempt++) {
        if (await write(cluster.api(i + attempt), headers, fileId, i)) break
        writesFailed += 1
        await sleep(100)
      }
    }
  }
  await Promise.all(Array.from({ length: Number(args.concurrency) }, writer))
  await killing
  return { kills, uploadsCut, conversionsCut, writesFailed }
}

async function write(
  api: Proc,
  headers: Record<string, string>,
  fileId: string,
  i: number,
): Promise<boolean> {
  try {
    const res = await fetch(`${api.baseUrl}/scene/attributes`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ file: fileId, nodeIdToAttributes: { [`n${i}`]: { i } } }),
    })
    await res.arrayBuffer()
    return res.status === 200
  } catch {
    return false
  }
}

async function licensesInUse(db: Db): Promise<number> {
  const now = Date.now()
  const row = await db.kysely
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('superseded_at', 'is', null)
    .where('expires_at', '>', now)
    .where((eb) => eb.or([eb('ends_at', 'is', null), eb('ends_at', '>', now)]))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

async function countEvents(db: Db, fileId: string): Promise<number> {
  const row = await db.kysely
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('file_id', '=', fileId)
    .where('event', '=', 'attribute_updated')
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Deliveries whose uuid never reached the receiver. */
async function undelivered(db: Db, sink: Sink): Promise<number> {
  const rows = await db.kysely.selectFrom('deliveries').select('uuid').execute()
  return rows.filter((r) => !sink.unique.has(String(r.uuid))).length
}

/**
 * Waits (within the budget) until every delivery succeeded and no file is queued or converting.
 * At every look, a file queued or converting must have a live job: one without would never finish.
 */
async function settle(db: Db, sink: Sink, started: number): Promise<void> {
  for (;;) {
    const stranded = await filesWithoutLiveConversion(db.kysely)
    assert.deepEqual(stranded, [], 'files queued or converting with no job that will finish them')
    const pending = await db.kysely
      .selectFrom('deliveries')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('status', '!=', 'succeeded')
      .executeTakeFirstOrThrow()
    const stuck = await db.kysely
      .selectFrom('files')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('state', 'in', ['queued', 'converting'])
      .executeTakeFirstOrThrow()
    if (Number(pending.n) === 0 && Number(stuck.n) === 0) return
    if (Date.now() - started > BUDGET_MS) {
      throw new Error(
        `past the budget: ${pending.n} deliveries not done, ${stuck.n} files stuck (${sink.unique.size} received)`,
      )
    }
    await sleep(500)
  }
}

/** No temp blob in the data dir, no conversion folder of a killed process. */
function checkTemp(target: ProcessTarget, deadPids: number[]): void {
  const dataDir = target.env.TESSERA_DATA_DIR ?? ''
  let blobs: string[] = []
  try {
    blobs = readdirSync(path.join(dataDir, 'blobs', '.tmp'))
  } catch {
    blobs = []
  }
  assert.deepEqual(blobs, [], 'temp blobs left')
  const folders = readdirSync(tmpdir()).filter(
    (name) => name.startsWith('tessera-convert-') && deadPids.some((pid) => name.includes(`-${pid}-`)),
  )
  assert.deepEqual(folders, [], 'conversion folders of killed processes left')
}

for (const factory of processTargets().filter((f) => args.dialect === 'both' || f.name === args.dialect)) {
  const target = await factory.create()
  try {
    const f = await chaos(target)
    console.log(
      `${factory.name}: ${f.committed} events committed, ${f.delivered} delivered (${f.duplicates} duplicates), ` +
        `${f.kills} kills (${f.uploadsCut} mid-upload, ${f.conversionsCut} mid-conversion), ` +
        `${f.writesFailed} writes cut off, licenses in use at most ${f.maxLicenses}/${LICENSES}, ` +
        `${f.seconds.toFixed(1)} s`,
    )
    record('chaos', [
      {
        metric: 'time',
        value: Number(f.seconds.toFixed(1)),
        unit: 's',
        dialect: factory.name,
        committed: f.committed,
        delivered: f.delivered,
        duplicates: f.duplicates,
        kills: f.kills,
        uploadsCut: f.uploadsCut,
        conversionsCut: f.conversionsCut,
        writesCutOff: f.writesFailed,
        licensesAtMost: `${f.maxLicenses} / ${LICENSES}`,
      },
    ])
  } finally {
    await target.cleanup()
  }
}

// BullMQ on a private Redis (AOF, fsync every second): a redis-server on a free port and a temp
// dir, started for the run and stopped after. Throughput settings from BullMQ's docs: a Worker with
// `concurrency`, completed jobs removed at once, failed ones retried with exponential back-off.
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Queue, Worker } from 'bullmq'
import { freePort } from '../local.ts'
import { type PeerJob, PeerSender, peerJob, type System, type SystemOptions } from './common.ts'

async function startRedis(): Promise<{ port: number; child: ChildProcess; dir: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-redis-'))
  const port = await freePort()
  const child = spawn(
    'redis-server',
    [
      ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', ''],
      ...['--appendonly', 'yes', '--appendfsync', 'everysec'],
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  )
  // Ready when it says so on stdout.
  await new Promise<void>((resolve, reject) => {
    let seen = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString()
      if (seen.includes('Ready to accept connections')) resolve()
    })
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code})`)))
  })
  child.stdout?.resume()
  return { port, child, dir }
}

export async function startBullmq(options: SystemOptions): Promise<System> {
  // BullMQ 6 takes its Redis client from an optional peer dependency.
  try {
    createRequire(import.meta.url).resolve('ioredis')
  } catch {
    throw new Error('--peer bullmq needs the ioredis package (BullMQ 6 takes it as an optional peer)')
  }
  const redis = await startRedis()
  const connection = { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null }
  const sender = new PeerSender(options.receiverUrl)
  const queue = new Queue<PeerJob>('deliveries', { connection })
  const worker = new Worker<PeerJob>('deliveries', (job) => sender.deliver(job.data), {
    connection,
    concurrency: options.concurrency,
    removeOnComplete: { count: 0 },
    removeOnFail: { count: 1000 },
  })
  await worker.waitUntilReady()
  return {
    name: 'BullMQ (Redis AOF everysec)',
    async enqueue(seq, t) {
      await queue.add('deliver', peerJob(seq, t), {
        attempts: 10,
        backoff: { type: 'exponential', delay: 1000 },
      })
    },
    async close() {
      await worker.close()
      await queue.close()
      await sender.close()
      redis.child.kill('SIGTERM')
      await once(redis.child, 'exit')
      rmSync(redis.dir, { recursive: true, force: true })
    },
  }
}

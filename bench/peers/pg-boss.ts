// pg-boss on its own schema with LISTEN/NOTIFY: pg-boss itself only polls (at best every 0.5 s),
// so a trigger on its job table NOTIFYs at commit — in the enqueuing transaction, no extra round
// trip, as Tessera's emit does — and a LISTEN connection wakes the workers (notifyWorker).
// Concurrency as its docs say: one work() registration per concurrent job, each polling at the
// shortest interval pg-boss allows (0.5 s).

import pg from 'pg'
import PgBoss from 'pg-boss'
import { type PeerJob, PeerSender, peerJob, type System, type SystemOptions, schemaName } from './common.ts'

const QUEUE = 'deliveries'

export async function startPgBoss(options: SystemOptions): Promise<System> {
  const { databaseUrl } = options
  if (!databaseUrl) throw new Error('pg-boss needs a PostgreSQL URL')
  const schema = schemaName('bench_boss')
  const channel = `${schema}_new`
  const sender = new PeerSender(options.receiverUrl)
  const boss = new PgBoss({ connectionString: databaseUrl, schema, supervise: false, schedule: false })
  boss.on('error', (err) => console.error('pg-boss error:', err))
  await boss.start()
  await boss.createQueue(QUEUE, { name: QUEUE, retryLimit: 10, retryBackoff: true })
  const admin = new pg.Client({ connectionString: databaseUrl })
  await admin.connect()
  await admin.query(`create function ${schema}.notify_new() returns trigger language plpgsql as $$
    begin perform pg_notify('${channel}', ''); return null; end $$`)
  await admin.query(`create trigger notify_new after insert on ${schema}.job
    for each statement execute function ${schema}.notify_new()`)
  const workers: string[] = []
  for (let i = 0; i < options.concurrency; i++) {
    const id = await boss.work<PeerJob>(
      QUEUE,
      { batchSize: 1, pollingIntervalSeconds: 0.5 },
      async ([job]) => {
        if (!job) return
        await sender.deliver(job.data)
        // A worker that found a job fetches again at once instead of sleeping out its interval, so
        // a backlog drains without waiting for notifications.
        boss.notifyWorker(id)
      },
    )
    workers.push(id)
  }
  const listener = new pg.Client({ connectionString: databaseUrl })
  await listener.connect()
  listener.on('notification', () => {
    for (const id of workers) boss.notifyWorker(id)
  })
  await listener.query(`listen ${channel}`)
  return {
    name: 'pg-boss (LISTEN/NOTIFY)',
    async enqueue(seq, t) {
      await boss.send(QUEUE, peerJob(seq, t))
    },
    async close() {
      await listener.end()
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 })
      await sender.close()
      await admin.query(`drop schema if exists ${schema} cascade`)
      await admin.end()
    },
  }
}

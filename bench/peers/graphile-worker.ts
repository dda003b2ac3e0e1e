// graphile-worker on its own schema, set up for throughput as its performance docs recommend: the
// local queue (jobs fetched and locked in batches, `concurrency + 1`), completions batched
// (`completeJobBatchDelay: 0`), LISTEN/NOTIFY (built in) waking the pool for new jobs.
import { Logger, run } from 'graphile-worker'
import pg from 'pg'
import { type PeerJob, PeerSender, peerJob, type System, type SystemOptions, schemaName } from './common.ts'

export async function startGraphileWorker(options: SystemOptions): Promise<System> {
  const { databaseUrl } = options
  if (!databaseUrl) throw new Error('graphile-worker needs a PostgreSQL URL')
  const schema = schemaName('bench_gw')
  const sender = new PeerSender(options.receiverUrl)
  const runner = await run({
    connectionString: databaseUrl,
    schema,
    concurrency: options.concurrency,
    noHandleSignals: true,
    pollInterval: 2000,
    preset: {
      worker: { localQueue: { size: options.concurrency + 1 }, completeJobBatchDelay: 0 },
    },
    logger: quietLogger,
    taskList: { deliver: (payload) => sender.deliver(payload as PeerJob) },
  })
  return {
    name: 'graphile-worker',
    async enqueue(seq, t) {
      await runner.addJob('deliver', peerJob(seq, t), { maxAttempts: 10 })
    },
    async close() {
      await runner.stop()
      await sender.close()
      const client = new pg.Client({ connectionString: databaseUrl })
      await client.connect()
      await client.query(`drop schema if exists ${schema} cascade`)
      await client.end()
    },
  }
}

/** Warnings and errors only, like the engine's `TESSERA_LOG_LEVEL=warn`. */
const quietLogger = new Logger(() => (level, message) => {
  if (level === 'error' || level === 'warning') console.error(`graphile-worker ${level}: ${message}`)
})

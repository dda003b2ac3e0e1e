// graphile-worker on its own schema, set up for throughput as its performance docs recommend: the
// local queue (jobs fetched and locked in batches, `concurrency + 1`), completions batched
// (`completeJobBatchDelay: 0`), LISTEN/NOTIFY (built in) waking the pool for new jobs.
//
// `graphile-worker` enqueues with `addJob`, one statement committed on its own. `graphile-worker-tx`
// enqueues as an outbox must, inside the caller's transaction: BEGIN, its SQL `add_job`, COMMIT on
// a pooled connection (a pool of 10, like Tessera's), the same framing as Tessera's emit.
import { Logger, run } from 'graphile-worker'
import pg from 'pg'
import { type PeerJob, PeerSender, peerJob, type System, type SystemOptions, schemaName } from './common.ts'

export const startGraphileWorker = (options: SystemOptions) => start(options, false)
export const startGraphileWorkerInTransaction = (options: SystemOptions) => start(options, true)

async function start(options: SystemOptions, inTransaction: boolean): Promise<System> {
  const { databaseUrl } = options
  if (!databaseUrl) throw new Error('graphile-worker needs a PostgreSQL URL')
  const schema = schemaName(inTransaction ? 'bench_gwtx' : 'bench_gw')
  const sender = new PeerSender(options.receiverUrl)
  const runner = await startRunner(databaseUrl, schema, options.concurrency, sender)
  const pool = inTransaction ? new pg.Pool({ connectionString: databaseUrl, max: 10 }) : null
  const addJob = `select id from ${schema}.add_job(identifier => 'deliver', payload => $1::json,
    max_attempts => 10)`
  return {
    name: inTransaction ? 'graphile-worker, add_job in a transaction' : 'graphile-worker',
    async enqueue(seq, t) {
      if (!pool) {
        await runner.addJob('deliver', peerJob(seq, t), { maxAttempts: 10 })
        return
      }
      const client = await pool.connect()
      try {
        await client.query('begin')
        await client.query(addJob, [JSON.stringify(peerJob(seq, t))])
        await client.query('commit')
      } catch (error) {
        await client.query('rollback').catch(() => undefined)
        throw error
      } finally {
        client.release()
      }
    },
    async close() {
      await pool?.end()
      await runner.stop()
      await sender.close()
      const client = new pg.Client({ connectionString: databaseUrl })
      await client.connect()
      await client.query(`drop schema if exists ${schema} cascade`)
      await client.end()
    },
  }
}

/**
 * A runner delivering `deliver` jobs with `sender`, set up with the throughput settings of
 * graphile-worker's performance docs (also run in a child process by graphile-worker-split.ts).
 */
export function startRunner(databaseUrl: string, schema: string, concurrency: number, sender: PeerSender) {
  return run({
    connectionString: databaseUrl,
    schema,
    concurrency,
    noHandleSignals: true,
    pollInterval: 2000,
    preset: { worker: { localQueue: { size: concurrency + 1 }, completeJobBatchDelay: 0 } },
    logger: quietLogger,
    taskList: { deliver: (payload) => sender.deliver(payload as PeerJob) },
  })
}

/** Warnings and errors only, like the engine's `TESSERA_LOG_LEVEL=warn`. */
export const quietLogger = new Logger(() => (level, message) => {
  if (level === 'error' || level === 'warning') console.error(`graphile-worker ${level}: ${message}`)
})

// graphile-worker with its runner in a process of its own (`--peer graphile-worker-split`), as its
// docs suggest running workers apart from the web process, to compare with Tessera's workers-process
// topology: the bench's process enqueues with WorkerUtils' `addJob`, a forked child runs the
// runner, set up exactly as in graphile-worker.ts (local queue, batched completions, LISTEN/NOTIFY).
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { makeWorkerUtils } from 'graphile-worker'
import pg from 'pg'
import { PeerSender, peerJob, type System, type SystemOptions, schemaName } from './common.ts'
import { quietLogger, startRunner } from './graphile-worker.ts'

interface ChildSetup {
  databaseUrl: string
  schema: string
  receiverUrl: string
  concurrency: number
}

export async function startGraphileWorkerSplit(options: SystemOptions): Promise<System> {
  const { databaseUrl } = options
  if (!databaseUrl) throw new Error('graphile-worker needs a PostgreSQL URL')
  const schema = schemaName('bench_gws')
  const utils = await makeWorkerUtils({ connectionString: databaseUrl, schema, logger: quietLogger })
  await utils.migrate()
  const setup: ChildSetup = {
    databaseUrl,
    schema,
    receiverUrl: options.receiverUrl,
    concurrency: options.concurrency,
  }
  const child = fork(fileURLToPath(import.meta.url), ['--runner', JSON.stringify(setup)], {
    stdio: 'inherit',
  })
  await once(child, 'message')
  return {
    name: 'graphile-worker, runner process',
    async enqueue(seq, t) {
      await utils.addJob('deliver', peerJob(seq, t), { maxAttempts: 10 })
    },
    async close() {
      child.send('stop')
      await once(child, 'exit')
      await utils.release()
      const client = new pg.Client({ connectionString: databaseUrl })
      await client.connect()
      await client.query(`drop schema if exists ${schema} cascade`)
      await client.end()
    },
  }
}

async function runner(setup: ChildSetup): Promise<void> {
  const sender = new PeerSender(setup.receiverUrl)
  const running = await startRunner(setup.databaseUrl, setup.schema, setup.concurrency, sender)
  process.send?.('ready')
  process.once('message', () => {
    void running
      .stop()
      .then(() => sender.close())
      .finally(() => process.exit(0))
  })
}

if (process.argv[2] === '--runner') await runner(JSON.parse(process.argv[3] ?? '{}') as ChildSetup)

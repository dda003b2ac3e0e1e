// Tessera with its delivery worker in a process of its own, as `tessera serve --processes N` runs
// it: the bench's process is the API (it emits), a `tessera worker --only deliveries` child (a
// cluster worker, so it takes relayed wake-ups) delivers. On SQLite the API relays a wake-up per
// event-loop turn once the emit committed, as the cluster's primary does; on PostgreSQL NOTIFY.
import cluster, { type Worker } from 'node:cluster'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { relayCommittedWakes } from '../../packages/server/src/cli/cluster.ts'
import { deliveryChannel } from '../../packages/server/src/delivery/index.ts'
import type { Db } from '../../packages/server/src/platform/db/index.ts'

const TESSERA_BIN = fileURLToPath(new URL('../../packages/server/bin/tessera-server.js', import.meta.url))

/** Starts the workers process on `env` (the API's data dir and settings); resolves once it is ready. */
export async function startWorkersProcess(env: Record<string, string>): Promise<Worker> {
  cluster.setupPrimary({ exec: TESSERA_BIN, args: ['worker', '--only', 'deliveries'] })
  const worker = cluster.fork({ ...env, TESSERA_CLUSTER_ROLE: 'workers' })
  for (;;) {
    const [message] = (await once(worker, 'message')) as [{ tessera?: string }]
    if (message.tessera === 'ready') return worker
  }
}

/** SQLite: wakes the workers process once a transaction that queued deliveries commits. */
export function relayWakes(db: Db, worker: Worker): () => void {
  return relayCommittedWakes(db, [deliveryChannel], (message) => {
    if (worker.isConnected()) worker.send(message)
  })
}

/** Stops the workers process (SIGTERM: in-flight attempts finish, leases go back). */
export async function stopWorkersProcess(worker: Worker): Promise<void> {
  if (worker.isDead()) return
  const exited = once(worker, 'exit')
  worker.process.kill('SIGTERM')
  await exited
}

// `tessera-server worker`: the webhook delivery and conversion workers without the API (also the workers
// process of `tessera-server serve --processes N`).
import { parseArgs } from 'node:util'
import { startOperationsServer } from '../app/operations.ts'
import { createContext, warmConnections } from '../app/server-context.ts'
import { DeliveryWorker } from '../delivery/index.ts'
import { EventRetention } from '../events/index.ts'
import { ConversionWorker } from '../modules/conversion/index.ts'
import type { Config } from '../platform/config.ts'
import { exitWithPrimary, receiveWakes, relayLive, reportReady } from './cluster.ts'
import { exitWithNpmParent, UsageError } from './common.ts'

const KINDS = ['deliveries', 'conversions'] as const

function parseWorkerArgs(args: string[]) {
  const { values } = parseArgs({
    args,
    options: { 'metrics-port': { type: 'string' }, only: { type: 'string' } },
  })
  const metricsPort = values['metrics-port'] === undefined ? null : Number(values['metrics-port'])
  if (metricsPort !== null && !(Number.isInteger(metricsPort) && metricsPort >= 0 && metricsPort <= 65535))
    throw new UsageError('--metrics-port must be a port number (0-65535)')
  const only = values.only
  if (only !== undefined && !KINDS.some((kind) => kind === only))
    throw new UsageError('--only must be deliveries or conversions')
  return { metricsPort, deliveries: only !== 'conversions', conversions: only !== 'deliveries' }
}

/**
 * Workers only: delivers webhooks and runs conversions until SIGTERM/SIGINT, then exits 0. With
 * `--metrics-port P` it also serves /metrics, /healthz and /readyz on HOST:P (no API); with
 * `--only deliveries|conversions` it runs one of the two workers.
 */
export async function worker(config: Config, args: string[]): Promise<void> {
  const options = parseWorkerArgs(args)
  const ctx = await createContext(config)
  await warmConnections(ctx)
  // --metrics-port wins; else TESSERA_METRICS_LISTEN; else no listener.
  const listen =
    options.metricsPort === null ? config.metricsListen : { host: config.host, port: options.metricsPort }
  const ops = listen === undefined ? null : await startOperationsServer(ctx, listen)
  const deliveries = options.deliveries
    ? new DeliveryWorker({
        db: ctx.db,
        config,
        log: ctx.log,
        metrics: ops?.deliveryMetrics,
        handOff: ctx.deliveryHandOff,
      })
    : null
  // The event log's pruning runs where deliveries are sent: it waits for them to finish.
  const retention = options.deliveries ? new EventRetention(ctx.db, config, ctx.log) : null
  const conversions = options.conversions ? new ConversionWorker({ ctx }) : null
  let closing = false
  const shutdown = (signal: string) => {
    if (closing) return
    closing = true
    ctx.log.info({ signal }, 'shutting down: finishing or releasing in-flight work')
    // Delivery: attempts in flight finish (bounded by the webhook timeout) and the leases of
    // anything claimed but not sent are handed back. Conversions: running ones are killed and their
    // jobs re-queued at once. Either way nothing waits for a lease to expire.
    Promise.all([deliveries?.stop(), retention?.stop(), conversions?.stop()])
      .then(() => ops?.close())
      .then(() => ctx.db.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          ctx.log.error({ err: error }, 'shutdown failed')
          process.exit(1)
        },
      )
  }
  process.once('SIGTERM', () => shutdown('SIGTERM'))
  process.once('SIGINT', () => shutdown('SIGINT'))
  exitWithNpmParent(shutdown)
  exitWithPrimary(shutdown)
  receiveWakes(ctx.db)
  relayLive(ctx.db)
  deliveries?.start()
  retention?.start()
  conversions?.start()
  ctx.log.info(
    {
      worker: deliveries?.id ?? conversions?.id,
      deliveries: deliveries !== null,
      conversions: conversions !== null,
      storage: ctx.db.description,
      ...(ops ? { metrics: `${ops.address}/metrics` } : {}),
    },
    'Tessera worker is running',
  )
  reportReady()
}

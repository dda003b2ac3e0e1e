// The server's context: the kernel's (config, database, blobs, keys, tokens, logger) plus the event
// ports. Apart from app.ts so that a CLI command that only needs the database does not load the
// HTTP routes and the conversion pipeline.
import pino, { type DestinationStream } from 'pino'
import { type DeliveryPorts, HandOffPort, subscribeDeliveries } from '../delivery/index.ts'
import type { EventPorts } from '../events/index.ts'
import { subscribeLiveChanges } from '../modules/live/index.ts'
import { openBlobStore } from '../platform/blobs/index.ts'
import type { Config } from '../platform/config.ts'
import type { AppContext } from '../platform/context.ts'
import { type Db, migrate, openDatabase } from '../platform/db/index.ts'
import { tightenDataDir } from '../platform/file-modes.ts'
import { type InstanceKeys, loadInstanceKeys } from '../platform/keys.ts'
import { loggerOptions } from '../platform/logger.ts'
import { TokenService } from '../platform/tokens.ts'
import { createStreamHub, type StreamHub } from '../stream/index.ts'

/**
 * The kernel's context plus the process's live stream hub (stream/) and the delivery hand-off port
 * (delivery/hand-off-port.ts). Modules take it as an AppContext and hand it on to emitEvent, which
 * wakes the hub at commit and whose subscribers find their ports there.
 */
export type ServerContext = AppContext & EventPorts & DeliveryPorts & { eventStream: StreamHub }

export interface BuildOptions {
  /** Use this database (tests share one per file); otherwise opened from config and closed with the app. */
  db?: Db
  keys?: InstanceKeys
  /** Where log lines go (tests capture them); default stdout. */
  logStream?: DestinationStream
  /** Run the webhook delivery and conversion workers in this process (default true). */
  workers?: boolean
  /** Run the conversion worker (default: as `workers`); tests that never convert turn it off. */
  conversions?: boolean
}

export async function createContext(config: Config, options: BuildOptions = {}): Promise<ServerContext> {
  // Before the database opens (it makes its files private too, silently): logged once the logger exists.
  const tightened = tightenDataDir(config.dataDir)
  const db = options.db ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }))
  if (!options.db) await migrate(db)
  const keys =
    options.keys ??
    (await loadInstanceKeys({ privateKeyFile: config.jwtPrivateKeyFile, dataDir: config.dataDir }))
  const log = pino(loggerOptions(config.logLevel), options.logStream ?? pino.destination(1))
  if (tightened.length > 0) log.warn({ changed: tightened }, 'data dir: group/other access removed')
  const blobs = await openBlobStore(config.storageUrl)
  const tokens = new TokenService(keys, config.authTokenTtlMs)
  const eventStream = createStreamHub({ db, config, log })
  // Every emit of this process queues its deliveries, in its own transaction (events/subscribers.ts).
  subscribeDeliveries()
  // …and relays what it changed to the live sessions of the file (modules/live/changes.ts).
  subscribeLiveChanges()
  return { config, db, blobs, keys, tokens, log, deliveryHandOff: new HandOffPort(), eventStream }
}

/**
 * PostgreSQL, for the long-running processes (`serve`, `worker`): opens and warms every pooled
 * connection before traffic comes (platform/db/pg-pool-warmth.ts). A database that cannot give
 * the whole pool now is logged, not fatal: connections then open on demand, as they would anyway.
 */
export async function warmConnections(ctx: Pick<ServerContext, 'db' | 'log'>): Promise<void> {
  try {
    await ctx.db.warm?.()
  } catch (err) {
    ctx.log.warn(
      { err },
      'could not open every pooled PostgreSQL connection at start (max_connections must exceed 11 per Tessera process); they open on demand',
    )
  }
}

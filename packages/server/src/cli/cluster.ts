// `tessera-server serve --processes N`: one primary, N API processes sharing one port, one workers process.
//
// node:cluster, not SO_REUSEPORT: it works on every supported Node and OS (reusePort needs Linux and
// Node >= 22.12), the primary hands accepted connections to the API processes round-robin (an even
// share, not a hash of the client's address), and it brings the IPC channel the wake-ups below use.
// The cost is one hand-over per connection, not per request (kept-alive connections stay put).
//
// Deliveries and conversions run once, in the workers process, never in the API processes. On
// PostgreSQL NOTIFY wakes it; SQLite has no NOTIFY, so an API process that committed new work sends
// a tiny IPC message, which the primary relays to the workers process (the slow poll stays as a net).
import cluster, { type Worker } from 'node:cluster'
import os from 'node:os'
import pino, { type Logger } from 'pino'
import { deliveryChannel } from '../delivery/index.ts'
import { relayLiveOverIpc } from '../modules/live/index.ts'
import type { Config } from '../platform/config.ts'
import type { Db } from '../platform/db/index.ts'
import { jobsChannel, type WakeChannel } from '../platform/jobs.ts'
import { loggerOptions } from '../platform/logger.ts'

const ROLE_ENV = 'TESSERA_CLUSTER_ROLE'
const MAX_PROCESSES = 256
const RESTART_DELAY_MS = 1000
const CHANNELS = [deliveryChannel, jobsChannel]

type Role = 'api' | 'workers'
export type Message =
  | { tessera: 'wake'; channel: string }
  | { tessera: 'ready' }
  | { tessera: 'live'; payload: string }

function isMessage(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && 'tessera' in value
}

/** `--processes`: a count (1-256) or `auto` (the cores this process may use); null when bad. */
export function parseProcesses(value: string): number | null {
  if (value === 'auto') return os.availableParallelism()
  const n = Number(value)
  return Number.isInteger(n) && n >= 1 && n <= MAX_PROCESSES ? n : null
}

/** This process's part in a `serve --processes N` cluster, or null outside one. */
export function clusterRole(): Role | null {
  if (!cluster.isWorker) return null
  const role = process.env[ROLE_ENV]
  return role === 'api' || role === 'workers' ? role : null
}

function send(message: Message): void {
  if (cluster.isWorker && process.connected) process.send?.(message)
}

/**
 * API process on a database whose JobStore cannot notify other processes (SQLite): new deliveries
 * and jobs wake the workers process over IPC, once the
 * emitting transaction commits (sent earlier, its claim would sit in SQLite's busy handler, which
 * sleeps in steps, until the commit). Wake-ups of one tick travel as one message per channel.
 */
export function forwardWakes(db: Db): void {
  if (!cluster.isWorker || db.jobStore.notifiesOtherProcesses) return
  relayCommittedWakes(db, CHANNELS, send)
}

/**
 * Calls `deliver` with a wake message for each channel woken in `db`, once the waking transaction
 * committed, at most once per channel per event-loop turn; answers the unregister. Also used where
 * another process than the cluster's primary relays (bench:delivery's workers-process systems).
 */
export function relayCommittedWakes(
  db: Db,
  channels: readonly WakeChannel[],
  deliver: (message: Message) => void,
): () => void {
  const unregisters = channels.map((channel) => {
    let queued = false
    const post = () => {
      if (queued) return
      queued = true
      setImmediate(() => {
        queued = false
        deliver({ tessera: 'wake', channel: channel.name })
      })
    }
    const whenEnds = db.whenTransactionEnds
    return channel.register({
      db,
      wake: () => {
        if (whenEnds === undefined) return post()
        try {
          whenEnds((committed) => committed && post())
        } catch {
          post() // outside a transaction: the work is committed already
        }
      },
    })
  })
  return () => {
    for (const unregister of unregisters) unregister()
  }
}

/**
 * SQLite: the live sessions' relay (modules/live) between this cluster's processes goes through the
 * primary, which hands each message to every other API process (PostgreSQL's NOTIFY does it there).
 */
export function relayLive(db: Db): void {
  if (!cluster.isWorker || db.jobStore.notifiesOtherProcesses) return
  relayLiveOverIpc(db, {
    send: (payload) => send({ tessera: 'live', payload }),
    onMessage: (listener) =>
      process.on('message', (message: unknown) => {
        if (isMessage(message) && message.tessera === 'live') listener(message.payload)
      }),
  })
}

/** Workers process, same databases: the relayed wake-ups wake this process's workers (no query). */
export function receiveWakes(db: Db): void {
  if (!cluster.isWorker || db.jobStore.notifiesOtherProcesses) return
  process.on('message', (message: unknown) => {
    if (!isMessage(message) || message.tessera !== 'wake') return
    const channel = CHANNELS.find((c) => c.name === message.channel)
    channel?.wake(db, db.kysely).catch(() => {})
  })
}

/** Tells the primary this process is up (API processes are seen listening instead). */
export function reportReady(): void {
  send({ tessera: 'ready' })
}

/** A cluster process whose primary went away (even SIGKILLed) shuts down: nothing is orphaned. */
export function exitWithPrimary(shutdown: (signal: string) => void): void {
  if (cluster.isWorker) process.once('disconnect', () => shutdown('primary exited'))
}

export interface PrimaryOptions {
  processes: number
  workers: boolean
  /** Migrations, keys, the first admin: done once, before any process starts. */
  prepare: () => Promise<void>
  /** Called with the shutdown function, e.g. to also stop when npm's parent goes away. */
  onShutdown?: (shutdown: (signal: string) => void) => void
}

/** Runs the primary: starts the processes, restarts one that dies, drains all on SIGTERM/SIGINT. */
export async function servePrimary(config: Config, options: PrimaryOptions): Promise<void> {
  const log = pino(loggerOptions(config.logLevel), pino.destination(1)).child({ component: 'primary' })
  await options.prepare()
  const primary = new Primary(config, log, options)
  process.once('SIGTERM', () => primary.shutdown('SIGTERM'))
  process.once('SIGINT', () => primary.shutdown('SIGINT'))
  options.onShutdown?.((signal) => primary.shutdown(signal))
  primary.start()
}

class Primary {
  readonly #children = new Map<Worker, Role>()
  readonly #waiting = new Set<Worker>()
  #workersChild: Worker | null = null
  #address = ''
  #started = false
  #closing = false
  #failed = false

  readonly config: Config
  readonly log: Logger
  readonly options: PrimaryOptions

  constructor(config: Config, log: Logger, options: PrimaryOptions) {
    this.config = config
    this.log = log
    this.options = options
  }

  start(): void {
    for (let i = 0; i < this.options.processes; i += 1) this.#fork('api')
    if (this.options.workers) this.#fork('workers')
  }

  #fork(role: Role): void {
    const child = cluster.fork({ [ROLE_ENV]: role })
    this.#children.set(child, role)
    if (role === 'workers') this.#workersChild = child
    if (!this.#started) this.#waiting.add(child)
    child.on('message', (message: unknown) => this.#onMessage(child, message))
    child.on('listening', (address) => {
      this.#address = `http://${address.address ?? this.config.host}:${address.port}`
      this.#ready(child)
    })
    child.once('exit', (code, signal) => this.#onExit(child, role, code, signal))
  }

  #onMessage(child: Worker, message: unknown): void {
    if (!isMessage(message)) return
    if (message.tessera === 'ready') this.#ready(child)
    else if (message.tessera === 'live') this.#toOtherApiProcesses(child, message)
    else if (this.#workersChild?.isConnected()) this.#workersChild.send(message)
  }

  #toOtherApiProcesses(from: Worker, message: Message): void {
    for (const [child, role] of this.#children) {
      if (child !== from && role === 'api' && child.isConnected()) child.send(message)
    }
  }

  #ready(child: Worker): void {
    if (!this.#waiting.delete(child) || this.#waiting.size > 0 || this.#started) return
    this.#started = true
    const { processes, workers } = this.options
    this.log.info({ address: this.#address, processes, workers }, 'Tessera is listening')
  }

  #onExit(child: Worker, role: Role, code: number | null, signal: string | null): void {
    this.#children.delete(child)
    if (this.#workersChild === child) this.#workersChild = null
    if (this.#closing) {
      // A process that died before the shutdown was replaced; only how the last ones end counts.
      if (code !== 0) this.#failed = true
      if (this.#children.size === 0) process.exit(this.#failed ? 1 : 0)
      return
    }
    if (!this.#started) {
      this.log.error({ role, code, signal }, 'a process failed to start; stopping')
      this.shutdown('start failed')
      return
    }
    this.log.warn({ role, code, signal }, 'a process exited; starting a new one')
    setTimeout(() => {
      if (!this.#closing) this.#fork(role)
    }, RESTART_DELAY_MS)
  }

  /** SIGTERM to every process (each drains as when run alone), exit once all are gone. */
  shutdown(signal: string): void {
    if (this.#closing) return
    this.#closing = true
    this.log.info({ signal, processes: this.#children.size }, 'shutting down: draining every process')
    if (signal === 'start failed') this.#failed = true
    if (this.#children.size === 0) process.exit(this.#failed ? 1 : 0)
    for (const child of this.#children.keys()) child.process.kill('SIGTERM')
    // A child that never ends (a stuck attempt past every bound) must not hold the primary forever.
    setTimeout(() => {
      this.log.error('processes did not stop in time; killing them')
      for (const child of this.#children.keys()) child.process.kill('SIGKILL')
      this.#failed = true
    }, this.config.webhookTimeoutMs + 30_000).unref()
  }
}

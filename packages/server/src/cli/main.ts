// `tessera-server`: serve, worker, migrate, backup, restore, accounts, licenses, token sign, keys
// show. The client commands (login, upload, ls, …) are @tessera/cli's `tessera`, which runs these
// too when this package is installed beside it. Every command reads the server's environment
// variables (see `tessera-server serve --help`).
import { parseArgs } from 'node:util'
import type { FastifyInstance } from 'fastify'
import { configHelp, loadConfig } from '../app/config.ts'
import type { Config } from '../platform/config.ts'
import type { AppContext } from '../platform/context.ts'
import { AppError } from '../platform/errors.ts'
import { ConfigError } from '../platform/settings.ts'
import { parseDuration } from '../platform/units.ts'
import { exitWithNpmParent, out, StartError, UsageError, withContext } from './common.ts'

// Each command loads what it needs when it runs: `tessera --help` or `accounts passwd` do not load
// the HTTP routes, the conversion pipeline or the SDK.
const accountsModule = () => import('../modules/accounts/index.ts')
const sessionsModule = () => import('../modules/sessions/index.ts')

const USAGE = `Usage: tessera-server <command> [options]     (also: tessera <command>, with @tessera/cli)

Commands:
  serve [--no-workers] [--processes N|auto]
                                run the API server (migrates the database first); with
                                --no-workers it serves the API only: no webhook delivery,
                                no conversions; with --processes N, N API processes share the
                                port and one more process delivers and converts
  worker [--metrics-port P] [--only deliveries|conversions]
                                run the webhook delivery and conversion workers only (no API);
                                with --metrics-port it serves /metrics, /healthz and /readyz
                                on HOST:P (else on TESSERA_METRICS_LISTEN, if set)
  backup --to DIR               consistent online backup: database, blobs, manifest
  restore --from DIR            restore a backup into an empty data dir / database
  migrate                       bring the database schema up to date
  accounts create --email E --username U [--admin]
                                the password is asked twice on a terminal, else the first
                                line of stdin (never an argument)
  accounts list
  accounts disable <id|username|email>   (--enable to re-enable)
  accounts passwd <id|username|email>    set a password: asked twice on a terminal, else
                                the first line of stdin (never an argument)
  accounts set-email <id|username|email> <email>
  licenses                      show the license pool's use (from the database; 'tessera
                                licenses' asks a running server instead)
  token sign --account <id|username|email> [--ttl 24h]
                                mint an SSO auth token with the instance key
  keys show                     print the instance's public key and JWKS

The client commands (login, upload, ls, download, listen, trigger, webhooks) are the 'tessera'
binary of @tessera/cli: 'tessera --help'.

Run 'tessera-server serve --help' for the environment variables the server commands read.`

async function announceAdmin(ctx: AppContext): Promise<void> {
  const { ensureInitialAdmin } = await accountsModule()
  const admin = await ensureInitialAdmin(ctx)
  if (!admin) return
  // Printed once, on the first start; it is never stored in clear or logged.
  out('')
  out('  First start: created the admin account.')
  out(`    username: ${admin.account.username}`)
  out(`    password: ${admin.password}`)
  out('  Save the password now; it is not shown again.')
  out('')
}

async function serve(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      'no-workers': { type: 'boolean', default: false },
      processes: { type: 'string', default: '1' },
    },
  })
  const { clusterRole, exitWithPrimary, forwardWakes, parseProcesses, relayLive, servePrimary } =
    await import('./cluster.ts')
  const role = clusterRole()
  if (role === 'workers') return (await import('./worker.ts')).worker(config, [])
  const processes = role === null ? parseProcesses(values.processes) : 1
  if (processes === null) throw new UsageError('--processes must be a number from 1 to 256, or auto')
  const workers = role === null && !values['no-workers']
  if (processes > 1) {
    const prepare = () => withContext(config, announceAdmin)
    return servePrimary(config, { processes, workers, prepare, onShutdown: exitWithNpmParent })
  }
  const { buildApp } = await import('../app/app.ts')
  const { warmConnections } = await import('../app/server-context.ts')
  const app = await buildApp(config, { workers })
  await warmConnections(app.ctx)
  if (role === null) await announceAdmin(app.ctx)
  forwardWakes(app.ctx.db)
  relayLive(app.ctx.db)
  let closing = false
  const shutdown = (signal: string) => {
    if (closing) return
    closing = true
    app.log.info({ signal }, 'shutting down: finishing in-flight requests')
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  process.once('SIGTERM', () => shutdown('SIGTERM'))
  process.once('SIGINT', () => shutdown('SIGINT'))
  exitWithNpmParent(shutdown)
  exitWithPrimary(shutdown)
  const address = await listenOrStop(app, config)
  app.log.info({ address, storage: app.ctx.db.description, workers }, 'Tessera is listening')
}

/**
 * Listens on HOST:PORT; when it cannot (taken, no such host), stops what was started (workers,
 * database) and fails the start: a process left running without a port would look healthy to a
 * supervisor that restarts failed ones.
 */
async function listenOrStop(app: FastifyInstance, config: Config): Promise<string> {
  try {
    return await app.listen({ port: config.port, host: config.host })
  } catch (error) {
    await app.close().catch(() => {})
    const reason = error instanceof Error ? error.message : String(error)
    throw new StartError(`cannot listen on ${config.host}:${config.port} (HOST, PORT): ${reason}`)
  }
}

async function tokenSign(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { account: { type: 'string' }, ttl: { type: 'string' } } })
  if (!values.account) throw new UsageError('token sign needs --account')
  const ttlMs = values.ttl ? parseDuration(values.ttl) : config.authTokenTtlMs
  const { findAccountByLogin } = await accountsModule()
  await withContext(config, async (ctx) => {
    const account = await findAccountByLogin(ctx, values.account ?? '')
    if (!account) throw new UsageError(`no account ${values.account}`)
    out(await ctx.tokens.signAuthToken(account.id, ttlMs))
  })
}

async function serverVersion(): Promise<string> {
  const { readFile } = await import('node:fs/promises')
  const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'))
  return (manifest as { version: string }).version
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv
  if (!command || command === '--help' || command === 'help') {
    out(USAGE)
    return command ? 0 : 2
  }
  if (command === '--version' || command === '-V') {
    out(await serverVersion())
    return 0
  }
  if (command === 'accounts' && (args.includes('--help') || args.includes('-h') || args.length === 0)) {
    out((await import('./accounts.ts')).ACCOUNTS_HELP)
    return args.length === 0 ? 2 : 0
  }
  if (args.includes('--help') || args.includes('-h')) {
    out(`${USAGE}\n\nEnvironment variables:\n${configHelp()}`)
    return 0
  }
  const config = loadConfig()
  switch (command) {
    case 'serve':
      await serve(config, args)
      return -1 // keeps running
    case 'worker':
      await (await import('./worker.ts')).worker(config, args)
      return -1 // keeps running
    case 'migrate': {
      const { migrate, openDatabase } = await import('../platform/db/index.ts')
      const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
      try {
        const applied = await migrate(db)
        out(applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date')
      } finally {
        await db.close()
      }
      return 0
    }
    case 'backup':
      await (await import('./backup.ts')).backupCommand(config, args)
      return 0
    case 'restore':
      await (await import('./backup.ts')).restoreCommand(config, args)
      return 0
    case 'accounts':
      await (await import('./accounts.ts')).accounts(config, args)
      return 0
    case 'licenses': {
      const { licenseUsage } = await sessionsModule()
      const usage = await withContext(config, (ctx) => licenseUsage(ctx))
      out(`${usage.inUse} of ${usage.total} licenses in use`)
      for (const s of usage.sessions) out(`  ${s.username}\tsince ${s.created}\tvalid until ${s.validUntil}`)
      return 0
    }
    case 'token':
      if (args[0] !== 'sign') throw new UsageError('token needs sign')
      await tokenSign(config, args.slice(1))
      return 0
    case 'keys':
      if (args[0] !== 'show') throw new UsageError('keys needs show')
      await withContext(config, async (ctx) => {
        out(ctx.keys.publicPem.trimEnd())
        out(JSON.stringify(ctx.keys.jwks, null, 2))
      })
      return 0
    default:
      throw new UsageError(`unknown command ${command}`)
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code
  },
  (error: unknown) => {
    process.exitCode = reportFailure(error)
    // A command that failed ends, whatever it had opened before the failure (a database pool, a
    // started worker): left running, it would look alive to whatever supervises it.
    setTimeout(() => process.exit(), 2_000).unref()
  },
)

/** Prints why a command failed; answers its exit code (2: usage or configuration, 1: the rest). */
function reportFailure(error: unknown): number {
  if (error instanceof ConfigError || error instanceof UsageError || error instanceof AppError) {
    process.stderr.write(`tessera: ${error.message}\n`)
    return 2
  }
  if (error instanceof StartError) {
    process.stderr.write(`tessera: ${error.message}\n`)
    return 1
  }
  // An operating-system or database error (ECONNREFUSED, 3D000 no such database, 28P01 bad
  // password…) is about the machine or a setting, not the code: its message, without a stack.
  const code = (error as { code?: unknown } | null)?.code
  if (error instanceof Error && typeof code === 'string' && /^(E[A-Z]+|[0-9A-Z]{5})$/.test(code)) {
    process.stderr.write(`tessera: ${error.message} (${code})\n`)
    return 1
  }
  process.stderr.write(`tessera: ${(error as Error).stack ?? String(error)}\n`)
  return 1
}

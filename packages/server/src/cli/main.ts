// `tessera` CLI: serve, worker, migrate, accounts, licenses, token sign, keys show.
// Every command reads the same environment variables as the server (see `tessera serve --help`).
import { parseArgs } from 'node:util'
import { buildApp, createContext } from '../app.ts'
import {
  createAccount,
  ensureInitialAdmin,
  findAccountByLogin,
  listAccounts,
  setDisabled,
} from '../modules/accounts/index.ts'
import { ConversionWorker } from '../modules/conversion/index.ts'
import { licenseUsage } from '../modules/sessions/index.ts'
import { DeliveryWorker } from '../modules/webhooks/index.ts'
import { startOperationsServer } from '../operations.ts'
import { type Config, ConfigError, configHelp, loadConfig } from '../platform/config.ts'
import type { AppContext } from '../platform/context.ts'
import { migrate, openDatabase } from '../platform/db/index.ts'
import { AppError } from '../platform/errors.ts'
import { parseDuration } from '../platform/units.ts'

const USAGE = `Usage: tessera <command> [options]

Commands:
  serve [--no-workers]          run the API server (migrates the database first); with
                                --no-workers it serves the API only: no webhook delivery,
                                no conversions
  worker [--metrics-port P]     run the webhook delivery and conversion workers only (no API);
                                with --metrics-port it serves /metrics, /healthz and /readyz
                                on HOST:P
  migrate                       bring the database schema up to date
  accounts create --email E --username U --password P [--admin]
  accounts list
  accounts disable <id|username|email>   (--enable to re-enable)
  licenses                      show the license pool's use
  token sign --account <id|username|email> [--ttl 24h]
                                mint an SSO auth token with the instance key
  keys show                     print the instance's public key and JWKS

Run 'tessera serve --help' for the environment variables every command reads.`

class UsageError extends Error {}

function out(line: string): void {
  process.stdout.write(`${line}\n`)
}

async function withContext<T>(config: Config, fn: (ctx: AppContext) => Promise<T>): Promise<T> {
  const ctx = await createContext({ ...config, logLevel: 'warn' })
  try {
    return await fn(ctx)
  } finally {
    await ctx.db.close()
  }
}

async function serve(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { 'no-workers': { type: 'boolean', default: false } } })
  const app = await buildApp(config, { workers: !values['no-workers'] })
  const admin = await ensureInitialAdmin(app.ctx)
  if (admin) {
    // Printed once, on the first start; it is never stored in clear or logged.
    out('')
    out('  First start: created the admin account.')
    out(`    username: ${admin.account.username}`)
    out(`    password: ${admin.password}`)
    out('  Save the password now; it is not shown again.')
    out('')
  }
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
  const address = await app.listen({ port: config.port, host: config.host })
  app.log.info(
    { address, storage: app.ctx.db.description, workers: !values['no-workers'] },
    'Tessera is listening',
  )
}

/**
 * Workers only: delivers webhooks and runs conversions until SIGTERM/SIGINT, then exits 0. With
 * `--metrics-port P` it also serves /metrics, /healthz and /readyz on HOST:P (no API).
 */
async function worker(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { 'metrics-port': { type: 'string' } } })
  const metricsPort = values['metrics-port'] === undefined ? null : Number(values['metrics-port'])
  if (metricsPort !== null && !(Number.isInteger(metricsPort) && metricsPort >= 0 && metricsPort <= 65535))
    throw new UsageError('--metrics-port must be a port number (0-65535)')
  const ctx = await createContext(config)
  const ops = metricsPort === null ? null : await startOperationsServer(ctx, metricsPort)
  const deliveries = new DeliveryWorker({ db: ctx.db, config, log: ctx.log, metrics: ops?.deliveryMetrics })
  const conversions = new ConversionWorker({ ctx })
  let closing = false
  const shutdown = (signal: string) => {
    if (closing) return
    closing = true
    ctx.log.info({ signal }, 'shutting down: finishing or releasing in-flight work')
    // Delivery: attempts in flight finish (bounded by the webhook timeout) and the leases of
    // anything claimed but not sent are handed back. Conversions: running ones are killed and their
    // jobs re-queued at once. Either way nothing waits for a lease to expire.
    Promise.all([deliveries.stop(), conversions.stop()])
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
  deliveries.start()
  conversions.start()
  ctx.log.info(
    {
      worker: deliveries.id,
      storage: ctx.db.description,
      ...(ops ? { metrics: `${ops.address}/metrics` } : {}),
    },
    'Tessera worker is running',
  )
}

async function accounts(config: Config, args: string[]): Promise<void> {
  const [action, ...rest] = args
  if (action === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: {
        email: { type: 'string' },
        username: { type: 'string' },
        password: { type: 'string' },
        admin: { type: 'boolean', default: false },
      },
    })
    if (!values.email || !values.username || !values.password) {
      throw new UsageError('accounts create needs --email, --username and --password')
    }
    const account = await withContext(config, (ctx) =>
      createAccount(ctx, {
        email: values.email ?? '',
        username: values.username ?? '',
        password: values.password ?? '',
        admin: values.admin,
      }),
    )
    out(JSON.stringify(account))
    return
  }
  if (action === 'list') {
    const list = await withContext(config, (ctx) => listAccounts(ctx))
    for (const a of list) {
      out(
        [a.id, a.username, a.email, a.isAdmin ? 'admin' : 'user', a.disabled ? 'disabled' : 'enabled'].join(
          '\t',
        ),
      )
    }
    return
  }
  if (action === 'disable') {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { enable: { type: 'boolean', default: false } },
    })
    const key = positionals[0]
    if (!key) throw new UsageError('accounts disable needs an account id, username or e-mail')
    await withContext(config, async (ctx) => {
      const account = await findAccountByLogin(ctx, key)
      if (!account) throw new UsageError(`no account ${key}`)
      await setDisabled(ctx, account.id, !values.enable)
      out(`${account.username} ${values.enable ? 'enabled' : 'disabled'}`)
    })
    return
  }
  throw new UsageError('accounts needs create, list or disable')
}

async function tokenSign(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { account: { type: 'string' }, ttl: { type: 'string' } } })
  if (!values.account) throw new UsageError('token sign needs --account')
  const ttlMs = values.ttl ? parseDuration(values.ttl) : config.authTokenTtlMs
  await withContext(config, async (ctx) => {
    const account = await findAccountByLogin(ctx, values.account ?? '')
    if (!account) throw new UsageError(`no account ${values.account}`)
    out(await ctx.tokens.signAuthToken(account.id, ttlMs))
  })
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv
  if (!command || command === '--help' || command === 'help') {
    out(USAGE)
    return command ? 0 : 2
  }
  if (args.includes('--help')) {
    out(`${USAGE}\n\nEnvironment variables:\n${configHelp()}`)
    return 0
  }
  const config = loadConfig()
  switch (command) {
    case 'serve':
      await serve(config, args)
      return -1 // keeps running
    case 'worker':
      await worker(config, args)
      return -1 // keeps running
    case 'migrate': {
      const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
      try {
        const applied = await migrate(db)
        out(applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date')
      } finally {
        await db.close()
      }
      return 0
    }
    case 'accounts':
      await accounts(config, args)
      return 0
    case 'licenses': {
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
    if (error instanceof ConfigError || error instanceof UsageError || error instanceof AppError) {
      process.stderr.write(`tessera: ${error.message}\n`)
      process.exitCode = 2
      return
    }
    process.stderr.write(`tessera: ${(error as Error).stack ?? String(error)}\n`)
    process.exitCode = 1
  },
)

// Tessera as `tessera serve` runs it: API, outbox and delivery worker in one process, one webhook
// on the bench's receiver (loopback allowed), TESSERA_WEBHOOK_MAX_IN_FLIGHT = the concurrency. An
// enqueue is one emitEvent in a transaction of its own, resolved once it committed.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { buildApp } from '../../packages/server/src/app/app.ts'
import { loadConfig } from '../../packages/server/src/app/config.ts'
import { warmConnections } from '../../packages/server/src/app/server-context.ts'
import { emitEvent } from '../../packages/server/src/events/index.ts'
import { createAccount } from '../../packages/server/src/modules/accounts/index.ts'
import { migrate, openDatabase } from '../../packages/server/src/platform/db/index.ts'
import {
  EVENT,
  eventData,
  FILE_ID,
  OWNER,
  SECRET,
  type System,
  type SystemOptions,
  schemaName,
} from './common.ts'
import { relayWakes, startWorkersProcess, stopWorkersProcess } from './tessera-split.ts'

async function open(dialect: 'sqlite' | 'postgres', options: SystemOptions, dataDir: string) {
  if (dialect === 'sqlite')
    return { db: await openDatabase({ databaseUrl: undefined, dataDir }), drop: null, workerUrl: '' }
  const url = options.databaseUrl
  if (!url) throw new Error('Tessera on PostgreSQL needs TESSERA_DATABASE_URL')
  const schema = schemaName('bench_tessera')
  const db = await openDatabase({ databaseUrl: url, dataDir, pgSchema: schema })
  const drop = async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    await client.query(`drop schema if exists ${schema} cascade`)
    await client.end()
  }
  // A workers process reaches the same schema through the URL (libpq's `options`).
  const workerUrl = `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`
  return { db, drop, workerUrl }
}

/** `split`: the delivery worker runs in a process of its own (tessera-split.ts). */
export async function startTessera(
  dialect: 'sqlite' | 'postgres',
  options: SystemOptions,
  split = false,
): Promise<System> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-bench-'))
  const { db, drop, workerUrl } = await open(dialect, options, dataDir)
  await migrate(db)
  const env: Record<string, string> = {
    TESSERA_DATA_DIR: dataDir,
    TESSERA_LOG_LEVEL: 'warn',
    TESSERA_WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    TESSERA_WEBHOOK_MAX_IN_FLIGHT: String(options.concurrency),
    // Set even when empty (SQLite): a workers process would otherwise inherit the bench's own.
    TESSERA_DATABASE_URL: dialect === 'postgres' ? (options.databaseUrl ?? '') : '',
  }
  const app: FastifyInstance = await buildApp(loadConfig(env), { db, workers: !split })
  await app.ready()
  await warmConnections(app.ctx) // as `tessera serve` does
  const worker = split ? await startWorkersProcess({ ...env, TESSERA_DATABASE_URL: workerUrl }) : null
  // PostgreSQL wakes the workers process by NOTIFY; SQLite by the relay.
  const unrelay = worker && dialect === 'sqlite' ? relayWakes(db, worker) : null
  const account = await createAccount(app.ctx, {
    email: OWNER,
    username: 'bench',
    password: 'benchmark password',
  })
  const token = await app.ctx.tokens.signAuthToken(account.id, 3_600_000)
  const res = await app.inject({
    method: 'PUT',
    url: '/webhook/',
    headers: { authorization: `Bearer ${token}` },
    payload: { event: EVENT, url: options.receiverUrl, secretToken: SECRET },
  })
  if (res.statusCode !== 200) throw new Error(`webhook registration failed: ${res.body}`)
  return {
    name: `Tessera (${dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'}${split ? ', workers process' : ''})`,
    async enqueue(seq, t) {
      const input = {
        event: EVENT,
        fileId: FILE_ID,
        fileOwnerId: account.id,
        data: eventData(seq, t),
      } as const
      await db.kysely.transaction().execute((tx) => emitEvent(app.ctx, tx, input))
    },
    async pauseWebhook() {
      // Each emit still writes its delivery row (status paused); nothing is sent.
      await db.kysely.updateTable('webhooks').set({ disabled: 1 }).execute()
    },
    async close() {
      unrelay?.()
      if (worker) await stopWorkersProcess(worker)
      await app.close()
      await db.close()
      await drop?.()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

// What every `tessera` command shares: output, usage errors, opening a context for one command.

import type { Config } from '../platform/config.ts'
import type { AppContext } from '../platform/context.ts'

/** Bad usage: printed without a stack, exit code 2. */
export class UsageError extends Error {}

/** A start that cannot complete where it runs (the port is taken, say): printed without a stack, exit code 1. */
export class StartError extends Error {}

export function out(line: string): void {
  process.stdout.write(`${line}\n`)
}

export async function withContext<T>(config: Config, fn: (ctx: AppContext) => Promise<T>): Promise<T> {
  const { createContext } = await import('../app/server-context.ts')
  const ctx = await createContext({ ...config, logLevel: 'warn' })
  try {
    return await fn(ctx)
  } finally {
    await ctx.db.close()
  }
}

/**
 * Under an npm script (`npm start`), npm passes SIGTERM to the `sh -c` it started, and sh dies
 * without passing it on: this process would live on, orphaned, holding the port. So when run by
 * npm, the parent going away is taken as the signal. (Outside npm, nohup/setsid-style detaching
 * must keep working, so the parent is not watched.)
 */
export function exitWithNpmParent(shutdown: (signal: string) => void): void {
  if (process.env.npm_lifecycle_event === undefined) return
  const parent = process.ppid
  const timer = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(timer)
    shutdown('parent exited')
  }, 250)
  timer.unref()
}

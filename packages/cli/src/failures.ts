// How a client command's failure is told: one line on stderr saying what to do, never a stack for
// a failure the user can act on (the server is down, the token expired, no license is free).
import { TesseraError } from '@tessera/client'
import { ClientFailure, resolveUrl } from './credentials.ts'

/** The auth token no longer works (expired, invalid, revoked, …): a new login is the fix. */
function needsLogin(code: string): boolean {
  return code.startsWith('AUTH_TOKEN_')
}

/**
 * `ECONNREFUSED 127.0.0.1:8080`, `ENOTFOUND nowhere.example`: the first system error in the causes;
 * else the innermost cause's message (`bad port`), which says more than `fetch failed`.
 */
function networkCause(error: unknown): string | undefined {
  let current: unknown = error
  let innermost: string | undefined
  for (let depth = 0; depth < 6 && current; depth++) {
    const { code, address, port, hostname, errors } = current as {
      code?: unknown
      address?: unknown
      port?: unknown
      hostname?: unknown
      errors?: unknown
    }
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) {
      const where = typeof address === 'string' ? `${address}${port ? `:${port}` : ''}` : hostname
      return typeof where === 'string' ? `${code} ${where}` : code
    }
    if (current instanceof Error) innermost = current.message
    // Node tries each address of a name (happy eyeballs) and throws them all in an AggregateError.
    current = Array.isArray(errors) && errors.length > 0 ? errors[0] : (current as { cause?: unknown }).cause
  }
  return innermost
}

/** Prints the failure; answers the exit code (1), or rethrows what is a bug rather than a failure. */
export function reportFailure(error: unknown, args: string[]): number {
  if (error instanceof ClientFailure) {
    process.stderr.write(`tessera: ${error.message}\n`)
    return 1
  }
  if (!(error instanceof TesseraError)) throw error
  if (error.code === 'NETWORK_ERROR') {
    const cause = networkCause(error) ?? error.detail
    process.stderr.write(`tessera: cannot reach ${instanceUrl(args)}: ${cause} (NETWORK_ERROR)\n`)
    return 1
  }
  const detail = error.detail ? `: ${error.detail}` : ''
  process.stderr.write(`tessera: ${error.code}${detail} (HTTP ${error.status})\n`)
  if (needsLogin(error.code)) {
    process.stderr.write("tessera: your stored token no longer works: run 'tessera login --username U'\n")
  }
  return 1
}

function instanceUrl(args: string[]): string {
  const at = args.indexOf('--url')
  const option = at >= 0 ? args[at + 1] : args.find((a) => a.startsWith('--url='))?.slice(6)
  try {
    return resolveUrl(option)
  } catch {
    return option ?? 'the instance'
  }
}

// The server's admin commands (serve, worker, migrate, backup, restore, accounts, token, keys) are
// `tessera-server`'s, from @tessera/server: `tessera` runs it when it is installed beside this CLI
// (same project, or on PATH), so one `tessera` works for both; the CLI itself never loads server code.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { ClientFailure } from './credentials.ts'

export const SERVER_COMMANDS: readonly string[] = [
  'serve',
  'worker',
  'migrate',
  'backup',
  'restore',
  'accounts',
  'token',
  'keys',
]

/** The `tessera-server` script of an installed @tessera/server, or undefined. */
export function serverBin(): string | undefined {
  try {
    const manifestUrl = import.meta.resolve('@tessera/server/package.json')
    const manifest = JSON.parse(readFileSync(new URL(manifestUrl), 'utf8')) as {
      bin?: Record<string, string>
    }
    const bin = manifest.bin?.['tessera-server']
    return bin ? fileURLToPath(new URL(bin, manifestUrl)) : undefined
  } catch {
    return undefined
  }
}

const NOT_INSTALLED =
  "is a server command: it comes with @tessera/server (its binary 'tessera-server'), which is not " +
  'installed here. Run it where the server is installed (npx tessera-server …)'

/** Runs `tessera-server ARGV` with this process's stdio and signals; answers its exit code. */
export function runServerCommand(argv: string[]): Promise<number> {
  const bin = serverBin()
  const child = bin
    ? spawn(process.execPath, [bin, ...argv], { stdio: 'inherit' })
    : spawn('tessera-server', argv, { stdio: 'inherit' })
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal)
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((signal) => {
    const handler = forward(signal)
    process.on(signal, handler)
    return () => process.off(signal, handler)
  })
  return new Promise((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      for (const off of handlers) off()
      if (error.code === 'ENOENT') reject(new ClientFailure(`'${argv[0]}' ${NOT_INSTALLED}`))
      else reject(error)
    })
    child.once('exit', (code, signal) => {
      for (const off of handlers) off()
      resolve(code ?? (signal ? 128 + signalNumber(signal) : 1))
    })
  })
}

function signalNumber(signal: NodeJS.Signals): number {
  return ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as Record<string, number>)[signal] ?? 0
}

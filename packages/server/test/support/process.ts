// Runs the real `tessera` binary in a child process.
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/tessera-server.js')

/** `tessera-server ARGS` with `input` on stdin (a password for `accounts create`, never an argument). */
export function runCli(
  args: string[],
  env: Record<string, string>,
  input = '',
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr })
      },
    )
    child.stdin?.end(input)
  })
}

/** Creates the account `name` (`name@example.com`) with the CLI and signs an auth token for it. */
export async function cliAccount(
  env: Record<string, string>,
  name: string,
): Promise<{ accountId: string; authToken: string }> {
  const args = ['accounts', 'create', '--email', `${name}@example.com`, '--username', name]
  const created = await runCli(args, env, 'a long password\n')
  if (created.code !== 0) throw new Error(`tessera accounts create: ${created.stderr}`)
  const signed = await runCli(['token', 'sign', '--account', name], env)
  if (signed.code !== 0) throw new Error(`tessera token sign: ${signed.stderr}`)
  const accountId = (JSON.parse(created.stdout) as { id: string }).id
  return { accountId, authToken: signed.stdout.trim() }
}

export interface Server {
  child: ChildProcess
  baseUrl: string
  output: () => string
  exited: Promise<number | null>
}

/** Spawns `tessera <args>` and waits until `ready` finds what it needs in the output. */
async function spawnUntil<T>(
  args: string[],
  env: Record<string, string>,
  ready: (output: string) => T | undefined,
): Promise<{ child: ChildProcess; output: () => string; exited: Promise<number | null>; found: T }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, TESSERA_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString()
  })
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  // Generous: a start on a loaded 2-core machine (tsx compiling, several processes at once) takes long.
  const deadline = Date.now() + 90_000
  while (Date.now() < deadline) {
    const found = ready(output)
    if (found !== undefined) return { child, output: () => output, exited, found }
    if (child.exitCode !== null) break
    await new Promise((r) => setTimeout(r, 50))
  }
  child.kill('SIGKILL')
  throw new Error(`tessera ${args.join(' ')} did not start:\n${output}`)
}

/** Starts `tessera serve` on a free port and waits until it listens. */
export async function startServer(env: Record<string, string>, args: string[] = []): Promise<Server> {
  const { found, ...server } = await spawnUntil(
    ['serve', ...args],
    { PORT: '0', ...env },
    (output) => /"address":"(http:\/\/[^"]+)"/.exec(output)?.[1],
  )
  return { ...server, baseUrl: found }
}

export interface WorkerProcess {
  child: ChildProcess
  output: () => string
  exited: Promise<number | null>
  /** With `--metrics-port`: the URL of its /metrics. */
  metricsUrl?: string
}

/** Starts `tessera worker` and waits until its delivery loop runs. */
export async function startWorker(env: Record<string, string>, args: string[] = []): Promise<WorkerProcess> {
  const { found, ...worker } = await spawnUntil(['worker', ...args], env, (output) =>
    output.includes('Tessera worker is running')
      ? { metricsUrl: /"metrics":"(http:\/\/[^"]+)"/.exec(output)?.[1] }
      : undefined,
  )
  return { ...worker, ...found }
}

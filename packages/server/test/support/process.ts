// Runs the real `tessera` binary in a child process.
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/tessera.js')

export function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr })
      },
    )
  })
}

export interface Server {
  child: ChildProcess
  baseUrl: string
  output: () => string
  exited: Promise<number | null>
}

/** Starts `tessera serve` on a free port and waits until it listens. */
export async function startServer(env: Record<string, string>, args: string[] = []): Promise<Server> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    env: { ...process.env, PORT: '0', TESSERA_LOG_LEVEL: 'info', ...env },
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
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    const match = /"address":"(http:\/\/[^"]+)"/.exec(output)
    if (match?.[1]) return { child, baseUrl: match[1], output: () => output, exited }
    if (child.exitCode !== null) break
    await new Promise((r) => setTimeout(r, 50))
  }
  child.kill('SIGKILL')
  throw new Error(`server did not start:\n${output}`)
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
  const child = spawn(process.execPath, [BIN, 'worker', ...args], {
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
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    if (output.includes('Tessera worker is running')) {
      const metricsUrl = /"metrics":"(http:\/\/[^"]+)"/.exec(output)?.[1]
      return { child, output: () => output, exited, metricsUrl }
    }
    if (child.exitCode !== null) break
    await new Promise((r) => setTimeout(r, 50))
  }
  child.kill('SIGKILL')
  throw new Error(`worker did not start:\n${output}`)
}

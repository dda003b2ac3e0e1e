// A real server for the CLI's tests: `tessera-server serve` in a child process (the server package
// is found by its name, as a workspace neighbour; the CLI itself never imports it).
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const SERVER_BIN = fileURLToPath(import.meta.resolve('@tessera/server/bin/tessera-server.js'))
export const BIN = fileURLToPath(new URL('../../bin/tessera.js', import.meta.url))

export function tempDir(prefix = 'tessera-cli-test-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix))
}

export interface Server {
  child: ChildProcess
  baseUrl: string
  output: () => string
  exited: Promise<number | null>
}

type Ran = { code: number; stdout: string; stderr: string }

/** Runs a bin of ours with this Node, `input` on stdin (not a TTY). */
function runBin(bin: string, args: string[], env: Record<string, string>, input: string, timeout: number) {
  return new Promise<Ran>((resolve) => {
    const child = execFile(
      process.execPath,
      [bin, ...args],
      { env: { ...process.env, ...env }, timeout },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    )
    child.stdin?.end(input)
  })
}

/** `tessera-server ARGS` with `input` on stdin. */
export function runServerCli(args: string[], env: Record<string, string>, input = ''): Promise<Ran> {
  return runBin(SERVER_BIN, args, env, input, 60_000)
}

/** Starts `tessera-server serve` on a free port and waits until it listens. */
export async function startServer(env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, [SERVER_BIN, 'serve'], {
    env: { ...process.env, TESSERA_LOG_LEVEL: 'info', PORT: '0', ...env },
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
  const deadline = Date.now() + 90_000
  while (Date.now() < deadline) {
    const found = /"address":"(http:\/\/[^"]+)"/.exec(output)?.[1]
    if (found) return { child, baseUrl: found, output: () => output, exited }
    if (child.exitCode !== null) break
    await new Promise((r) => setTimeout(r, 50))
  }
  child.kill('SIGKILL')
  throw new Error(`tessera-server serve did not start:\n${output}`)
}

/** The admin account the first start printed. */
export function firstAdmin(server: Server): { username: string; password: string } {
  const match = /username: (\S+)\n\s+password: (\S+)/.exec(server.output())
  if (!match?.[1] || !match[2]) throw new Error(`no admin credentials in:\n${server.output()}`)
  return { username: match[1], password: match[2] }
}

/** `tessera ARGS` (the CLI) with `input` on stdin (not a TTY). */
export function runCli(args: string[], env: Record<string, string>, input = ''): Promise<Ran> {
  return runBin(BIN, args, env, input, 120_000)
}

/** A running `tessera ARGS` (e.g. `listen`) whose stdout and stderr are collected as they come. */
export interface Running {
  child: ChildProcess
  output: () => string
  exited: Promise<number | null>
}

export function spawnCli(args: string[], env: Record<string, string>): Running {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const collect = (d: Buffer) => {
    output += d.toString()
  }
  child.stdout?.on('data', collect)
  child.stderr?.on('data', collect)
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  return { child, output: () => output, exited }
}

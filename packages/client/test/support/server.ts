// A real `tessera serve` in a child process for the SDK's tests: SQLite always, PostgreSQL (a
// fresh schema) when TESSERA_TEST_DATABASE_URL is set. The binary is found through the server
// package's name, never a relative path into it.
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'

export const BIN = fileURLToPath(import.meta.resolve('@tessera/server/bin/tessera-server.js'))

export interface Target {
  name: 'sqlite' | 'postgres'
  env: Record<string, string>
  cleanup(): Promise<void>
}

export interface Instance {
  url: string
  admin: { username: string; password: string }
  env: Record<string, string>
  output(): string
  createAccount(username: string, password: string): Promise<void>
  stop(): Promise<void>
}

export function targetNames(): Array<Target['name']> {
  return process.env.TESSERA_TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite']
}

async function createTarget(name: Target['name']): Promise<Target> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-sdk-'))
  const removeDir = async () => rmSync(dataDir, { recursive: true, force: true })
  const url = process.env.TESSERA_TEST_DATABASE_URL
  if (name === 'sqlite' || !url)
    return { name: 'sqlite', env: { TESSERA_DATA_DIR: dataDir }, cleanup: removeDir }
  const schema = `sdk_${process.pid}_${randomBytes(4).toString('hex')}`
  await adminQuery(url, `create schema ${schema}`)
  const withSchema = new URL(url)
  withSchema.searchParams.set('options', `-c search_path=${schema}`)
  return {
    name,
    env: { TESSERA_DATA_DIR: dataDir, TESSERA_DATABASE_URL: withSchema.toString() },
    async cleanup() {
      await adminQuery(url, `drop schema if exists ${schema} cascade`)
      await removeDir()
    },
  }
}

async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

/** Starts `tessera serve` on a free loopback port with a fresh database; `env` adds settings. */
export async function startTessera(
  name: Target['name'],
  env: Record<string, string> = {},
  args: string[] = [],
): Promise<Instance> {
  const target = await createTarget(name)
  const fullEnv = {
    TESSERA_WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    TESSERA_WEBHOOK_RETRY_SCHEDULE: '0s,200ms,200ms',
    ...target.env,
    ...env,
  }
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', TESSERA_LOG_LEVEL: 'info', ...fullEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString()
  })
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString()
  })
  const url = await waitFor(
    child,
    () => /"address":"(http:\/\/[^"]+)"/.exec(output)?.[1],
    () => output,
  )
  const match = /username: (\S+)\n\s+password: (\S+)/.exec(output)
  if (!match?.[1] || !match[2]) throw new Error(`no admin banner:\n${output}`)
  return {
    url,
    admin: { username: match[1], password: match[2] },
    env: fullEnv,
    output: () => output,
    async createAccount(username, password) {
      await runCli(
        ['accounts', 'create', '--email', `${username}@example.com`, '--username', username],
        fullEnv,
        `${password}\n`,
      )
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
        await exited
        clearTimeout(timer)
      }
      await target.cleanup()
    },
  }
}

async function waitFor(
  child: ChildProcess,
  found: () => string | undefined,
  output: () => string,
): Promise<string> {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    const value = found()
    if (value) return value
    if (child.exitCode !== null) break
    await new Promise((r) => setTimeout(r, 50))
  }
  child.kill('SIGKILL')
  throw new Error(`tessera serve did not start:\n${output()}`)
}

/** `tessera-server ARGS`, `input` on stdin (a password is never an argument). */
function runCli(args: string[], env: Record<string, string>, input = ''): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, ...env }, timeout: 60_000 },
      (error, _o, stderr) =>
        error ? reject(new Error(`tessera ${args[0]} ${args[1]} failed: ${stderr}`)) : resolve(),
    )
    child.stdin?.end(input)
  })
}

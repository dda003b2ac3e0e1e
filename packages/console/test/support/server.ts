// A real `tessera serve` (SQLite, temp data dir) and a real webhook receiver for the browser tests.
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'

const require = createRequire(import.meta.url)
/** The server workspace, found through its package name (a path to run, not an import). */
export const SERVER_DIR = path.dirname(require.resolve('@tessera/server/package.json'))
const BIN = path.join(SERVER_DIR, 'bin/tessera-server.js')

export interface Tessera {
  baseUrl: string
  adminPassword: string
  env: Record<string, string>
  output: () => string
  cli: (args: string[], input?: string) => Promise<string>
  stop: () => Promise<void>
}

export async function startTessera(extraEnv: Record<string, string> = {}): Promise<Tessera> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-console-'))
  const env: Record<string, string> = {
    TESSERA_DATA_DIR: dataDir,
    TESSERA_DATABASE_URL: '',
    TESSERA_LOG_LEVEL: 'info',
    TESSERA_WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    PORT: '0',
    HOST: '127.0.0.1',
    ...extraEnv,
  }
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString()
  })
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString()
  })
  const deadline = Date.now() + 60_000
  let baseUrl = ''
  while (Date.now() < deadline && child.exitCode === null) {
    baseUrl = /"address":"(http:\/\/[^"]+)"/.exec(output)?.[1] ?? ''
    if (baseUrl) break
    await new Promise((r) => setTimeout(r, 100))
  }
  if (!baseUrl) {
    child.kill('SIGKILL')
    throw new Error(`tessera serve did not start:\n${output}`)
  }
  const adminPassword = /password: (\S+)/.exec(output)?.[1] ?? ''
  // `input` on stdin: `accounts create` reads the password there (never an argument).
  const cli = (args: string[], input = '') =>
    new Promise<string>((resolve, reject) => {
      const child = execFile(
        process.execPath,
        [BIN, ...args],
        { env: { ...process.env, ...env } },
        (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      )
      child.stdin?.end(input)
    })
  return {
    baseUrl,
    adminPassword,
    env,
    output: () => output,
    cli,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM')
        await once(child, 'exit')
      }
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** A webhook receiver answering every POST with 200 `{"success": true}`. */
export async function startReceiver(): Promise<{ url: string; received: string[]; stop: () => void }> {
  const received: string[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (d: Buffer) => {
      body += d.toString()
    })
    req.on('end', () => {
      received.push(body)
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    stop: () => {
      server.closeAllConnections()
      server.close()
    },
  }
}

// SIGTERM to `npm start` (and to the `tessera` bin) stops the server: no orphaned process keeps the
// port. npm hands the signal to the `sh -c` running the script, which dies without passing it on.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { after, test } from 'node:test'
import { tempDir } from '../support/harness.ts'

const ROOT = path.resolve(import.meta.dirname, '../../../..')
const BIN = path.resolve(import.meta.dirname, '../../bin/tessera-server.js')
const started: number[] = []
const dirs: string[] = []

after(() => {
  // Whatever a failed run left behind: only the processes this file started.
  for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL')
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

/** Spawns the command with a fresh data dir; answers the pid of the server process once it listens. */
async function startServer(
  command: string,
  args: string[],
): Promise<{ child: ChildProcess; serverPid: number; port: number }> {
  const port = await freePort()
  const dataDir = tempDir('tessera-signals-')
  dirs.push(dataDir)
  const child = spawn(command, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      TESSERA_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      TESSERA_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  if (child.pid) started.push(child.pid)
  const serverPid = await new Promise<number>((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => reject(new Error(`no "listening" line in 60 s:\n${output}`)), 60_000)
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const line = output.split('\n').find((l) => l.includes('Tessera is listening'))
      if (line) {
        clearTimeout(timer)
        resolve((JSON.parse(line) as { pid: number }).pid)
      }
    })
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening:\n${output}`)))
  })
  started.push(serverPid)
  return { child, serverPid, port }
}

async function assertGoneWithin(ms: number, serverPid: number, port: number): Promise<void> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (!alive(serverPid) && !(await accepts(port))) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  assert.fail(
    `after ${ms} ms the server (pid ${serverPid}) is ${alive(serverPid) ? 'alive' : 'gone'} and port ${port} ${(await accepts(port)) ? 'accepts' : 'refuses'}`,
  )
}

test('SIGTERM to `npm start` leaves no server process holding the port', { timeout: 120_000 }, async () => {
  const { child, serverPid, port } = await startServer('npm', ['start'])
  assert.notEqual(serverPid, child.pid)
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
  await assertGoneWithin(5000, serverPid, port)
})

test('SIGTERM to the tessera bin stops the server within seconds', { timeout: 120_000 }, async () => {
  const { child, serverPid, port } = await startServer(process.execPath, [BIN, 'serve'])
  assert.equal(serverPid, child.pid)
  const started = Date.now()
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  child.kill('SIGTERM')
  assert.equal(await exited, 0)
  assert.ok(Date.now() - started < 5000)
  await assertGoneWithin(1000, serverPid, port)
})

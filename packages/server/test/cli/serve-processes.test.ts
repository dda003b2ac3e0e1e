// tessera serve --processes 2 on every dialect: two API processes share the port (the primary
// hands connections round-robin), one workers process delivers (woken over IPC on SQLite, so a
// delivery never waits for the 2 s poll), a killed API process is replaced, and SIGTERM to the
// primary drains every process and exits 0.
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { sleep, until } from '../support/emitter.ts'
import { createUser, registerHook, signIn, upload, writeAttributes } from '../support/http-client.ts'
import { type Server, startServer } from '../support/process.ts'
import { Receiver } from '../support/receiver.ts'
import { processTargets } from '../support/targets.ts'

function apiPids(output: string): number[] {
  const pids = output
    .split('\n')
    .filter((line) => line.includes('"workers":false') && line.includes('Tessera is listening'))
    .map((line) => (JSON.parse(line) as { pid: number }).pid)
  return [...new Set(pids)]
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

for (const factory of processTargets()) {
  describe(`tessera serve --processes 2 on ${factory.name}`, () => {
    const cleanups: Array<() => Promise<void> | void> = []
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup()
    })

    test('two API processes, one workers process, prompt deliveries, restarts, clean drain', async () => {
      const target = await factory.create()
      cleanups.push(() => target.cleanup())
      const receiver = new Receiver()
      await receiver.start()
      cleanups.push(() => receiver.stop())
      const env = { ...target.env, TESSERA_WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }
      const server: Server = await startServer(env, ['--processes', '2'])
      cleanups.push(() => {
        if (server.child.exitCode === null) server.child.kill('SIGKILL')
      })
      await until('every process up', async () => server.output().includes('"processes":2'), 90_000)
      // The primary logs once each process is listening, but a process's own log line travels on
      // its own pipe and may arrive a moment after the primary's (CI saw it 1 line short).
      const logged = () =>
        apiPids(server.output()).length >= 2 && server.output().includes('worker is running')
      await until('each process logged', async () => logged(), 5_000)
      await sleep(200)
      const pids = apiPids(server.output())
      assert.equal(pids.length, 2, server.output())
      assert.equal(server.output().match(/Tessera worker is running/g)?.length, 1)

      const user = await createUser(env)
      const client = await signIn(server.baseUrl, user)
      await registerHook(server.baseUrl, client, 'attribute_updated', receiver.on('/hook', okay))
      const file = await upload(server.baseUrl, client, 'a.stl', Buffer.from('not a model'))
      assert.equal(file.status, 200)
      // Each write's delivery arrives well within the workers' 2 s poll: the IPC wake-up works.
      const latencies: number[] = []
      for (let i = 0; i < 7; i += 1) {
        const started = Date.now()
        assert.equal(await writeAttributes(server.baseUrl, client, file.id ?? '', { n: { i } }), 200)
        await until('the delivery', async () => receiver.at('/hook').length > i, 10_000)
        latencies.push(Date.now() - started)
      }
      latencies.sort((a, b) => a - b)
      assert.ok((latencies[3] ?? 0) < 800, `median ${latencies[3]} ms: ${latencies.join(', ')}`)
      // Both API processes answered requests.
      const served = new Set(
        server
          .output()
          .split('\n')
          .filter((line) => line.includes('"request completed"'))
          .map((line) => (JSON.parse(line) as { pid: number }).pid),
      )
      for (const pid of pids) assert.ok(served.has(pid), `process ${pid} served nothing`)

      // A killed API process is replaced; the port keeps answering meanwhile.
      process.kill(pids[0] ?? 0, 'SIGKILL')
      await until('a replacement', async () => apiPids(server.output()).length === 3, 90_000)
      for (let i = 0; i < 4; i += 1) assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200)

      server.child.kill('SIGTERM')
      assert.equal(await server.exited, 0, server.output().slice(-2000))
      await sleep(200)
      for (const pid of apiPids(server.output())) assert.equal(alive(pid), false, `process ${pid} outlived`)
    })
  })
}

function okay(_req: unknown, res: import('node:http').ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end('{"success":true}')
}

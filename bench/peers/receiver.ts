// The bench's webhook receiver, in a child process of its own (this file run with `--receiver`)
// so that it never shares an event loop with the systems under test: answers every POST with 200
// and `{"success":true}`, counts them and records each one's enqueue-to-arrival time (the enqueue
// time travels in the event data as `t`).
import { type ChildProcess, fork } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'

/** Parent → receiver. `count` answers the count alone (polled), `stats` the latencies too. */
type Command = { type: 'reset' } | { type: 'count' } | { type: 'stats' }
/** Receiver → parent. */
type Reply = { type: 'ready'; port: number } | { type: 'stats'; count: number; latencies: number[] }

/** Sub-millisecond time, comparable across processes on one machine. */
// The system-wide monotonic clock (CLOCK_MONOTONIC), the same in every process of the machine. Not
// performance.timeOrigin + performance.now(): each process fixes its time origin from the wall
// clock when it starts, and a step of the VM's clock between the two starts showed as
// milliseconds of (even negative) latency.
export const nowMs = () => Number(process.hrtime.bigint()) / 1e6

async function receiver(): Promise<void> {
  let count = 0
  let latencies: number[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const arrived = nowMs()
      const envelope = JSON.parse(Buffer.concat(chunks).toString()) as { data?: { t?: number } }
      count += 1
      if (typeof envelope.data?.t === 'number') latencies.push(arrived - envelope.data.t)
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"success":true}')
    })
  })
  server.keepAliveTimeout = 60_000
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  process.on('message', (message: Command) => {
    if (message.type === 'reset') {
      count = 0
      latencies = []
    }
    // The poll asks for the count alone: the latencies (one number per request, thousands) would be
    // serialized here and parsed in the bench's process, beside the system under test, every 5 ms.
    const reply: Reply = { type: 'stats', count, latencies: message.type === 'count' ? [] : latencies }
    process.send?.(reply)
  })
  process.on('disconnect', () => process.exit(0))
  process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port } satisfies Reply)
}

export class ReceiverProcess {
  readonly child: ChildProcess
  readonly url: string

  constructor(child: ChildProcess, url: string) {
    this.child = child
    this.url = url
  }

  static async start(): Promise<ReceiverProcess> {
    const child = fork(fileURLToPath(import.meta.url), ['--receiver'], { stdio: 'inherit' })
    const [ready] = (await once(child, 'message')) as [Reply]
    if (ready.type !== 'ready') throw new Error('receiver did not start')
    return new ReceiverProcess(child, `http://127.0.0.1:${ready.port}/hook`)
  }

  ask(command: Command): Promise<{ count: number; latencies: number[] }> {
    this.child.send(command)
    return once(this.child, 'message').then(([reply]) => reply as { count: number; latencies: number[] })
  }

  /** Polls until the receiver has seen `count` requests since the last reset. */
  async waitFor(count: number, timeoutMs = 120_000): Promise<{ count: number; latencies: number[] }> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const { count: seen } = await this.ask({ type: 'count' })
      if (seen >= count) return this.ask({ type: 'stats' })
      if (Date.now() > deadline) throw new Error(`receiver saw ${seen} of ${count} in time`)
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  }

  stop(): void {
    this.child.disconnect()
  }
}

if (process.argv[2] === '--receiver') await receiver()

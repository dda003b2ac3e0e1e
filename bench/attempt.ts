// One delivery attempt's cost (`npm run bench:attempt`): sendAttempt (SSRF vetting, pinning, timer,
// capped read, verdict) against a bare undici `request()` + `body.json()` loop, both POSTing the same
// delivery-sized body to one local receiver (bench/delivery.ts's, in a child process) with
// `--concurrency` requests at a time. Prints CPU time per request of this process and the rates;
// rounds alternate so both sides see the same machine.
//
//   npm run bench:attempt -- [--requests 20000] [--concurrency 8] [--rounds 3]
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { Agent, request } from 'undici'
import { closeDeliveryAgents } from '../packages/server/src/delivery/agent.ts'
import { sendAttempt } from '../packages/server/src/delivery/attempt.ts'
import { record } from './results.ts'

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
  },
})
const requests = Number(args.requests)
const concurrency = Number(args.concurrency)
const rounds = Number(args.rounds)
for (const [name, value] of Object.entries({ requests, concurrency, rounds })) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a whole number >= 1`)
}

const receiver = fork(fileURLToPath(new URL('./delivery.ts', import.meta.url)), ['--receiver'], {
  stdio: 'inherit',
})
const [ready] = (await once(receiver, 'message')) as [{ type: string; port: number }]
if (ready.type !== 'ready') throw new Error('receiver did not start')
const url = `http://127.0.0.1:${ready.port}/hook`
const body = JSON.stringify({
  file: '0123456789abcdef01234567',
  event: 'attribute_updated',
  data: { nodeIdToAttributes: { 'node-1': { color: 'red' } }, user: { email: 'bench@example.com' } },
  owner: 'bench@example.com',
  runTimestamp: Date.now(),
  uuid: crypto.randomUUID(),
})

const agent = new Agent()
async function raw(): Promise<void> {
  const res = await request(url, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json' },
    body,
  })
  const answer = (await res.body.json()) as { success?: boolean }
  if (res.statusCode !== 200 || answer.success !== true) throw new Error('receiver refused')
}
async function attempt(): Promise<void> {
  const result = await sendAttempt({
    url,
    body,
    headers: { 'x-service-token': 'bench' },
    timeoutMs: 10_000,
    allowPrivate: true,
  })
  if (!result.ok) throw new Error(`attempt failed: ${result.errorMessage}`)
}

/** CPU microseconds per request of this process, and requests per second. */
async function measure(fn: () => Promise<void>): Promise<{ cpuUs: number; rate: number }> {
  let next = 0
  const cpu = process.cpuUsage()
  const started = performance.now()
  const lane = async () => {
    while (next < requests) {
      next += 1
      await fn()
    }
  }
  await Promise.all(Array.from({ length: concurrency }, lane))
  const elapsed = performance.now() - started
  const used = process.cpuUsage(cpu)
  return { cpuUs: (used.user + used.system) / requests, rate: (requests / elapsed) * 1000 }
}

try {
  await measure(raw) // warm-up: JIT, connections
  await measure(attempt)
  console.log(`delivery attempt benchmark (${requests} requests, concurrency ${concurrency})`)
  const ratios: number[] = []
  const cpus: number[] = []
  for (let round = 1; round <= rounds; round++) {
    const a = await measure(raw)
    const b = await measure(attempt)
    ratios.push(b.cpuUs / a.cpuUs)
    cpus.push(b.cpuUs)
    const f = (n: number) => n.toFixed(1)
    console.log(
      `  round ${round}: raw request() ${f(a.cpuUs)} µs/req (${a.rate.toFixed(0)}/s), ` +
        `sendAttempt ${f(b.cpuUs)} µs/req (${b.rate.toFixed(0)}/s), CPU ratio ${(b.cpuUs / a.cpuUs).toFixed(2)}`,
    )
  }
  const mid = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) / 2)] ?? Number.NaN
  const ratio = Number(mid(ratios).toFixed(2))
  record('attempt', [
    {
      metric: 'cpu_per_attempt',
      value: Number(mid(cpus).toFixed(1)),
      unit: 'µs',
      baseline: 'bare undici request() loop',
      ratio,
      ratios: ratios.map((r) => Number(r.toFixed(2))),
    },
  ])
} finally {
  await agent.close()
  await closeDeliveryAgents()
  receiver.disconnect()
}

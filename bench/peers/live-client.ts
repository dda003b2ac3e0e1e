// The simulated participants of `npm run bench:live`: a `ws` client per participant that joins a
// live session (or the bare relay, which needs no hello), sends cameras at a steady rate with the
// send time in `position[0]`, records every other participant's camera latency, and tracks presence
// (welcome, joined, left) so the bench can tell when it is whole again after a kill.
import WebSocket from 'ws'

export interface Participant {
  index: number
  ws: WebSocket
  /** The participant id (live sessions); the resume id after a drop. */
  you: string | null
  /** Who this participant sees (live sessions). */
  present: Set<string>
  /** When the last welcome came (performance.now()). */
  welcomedAt: number
  server: string
}

export interface Recorder {
  latencies: number[]
  received: number
  sent: number
}

/** A camera whose position carries the send time (ms, this process's clock) and its sender. */
function camera(index: number): string {
  return JSON.stringify({
    type: 'camera',
    position: [performance.now(), index, 0],
    target: [0, 0, 0],
    fov: 50,
  })
}

function onMessage(p: Participant, rec: Recorder, text: string): void {
  const message = JSON.parse(text) as { type: string; [key: string]: unknown }
  if (message.type === 'camera') {
    const position = message.position as number[]
    rec.received += 1
    rec.latencies.push(performance.now() - (position[0] ?? 0))
  } else if (message.type === 'welcome') {
    p.you = String(message.you)
    p.present = new Set(
      (message.participants as Array<{ participantId: string }>).map((x) => x.participantId),
    )
    p.welcomedAt = performance.now()
  } else if (message.type === 'joined') {
    p.present.add((message.participant as { participantId: string }).participantId)
  } else if (message.type === 'left') {
    p.present.delete(String(message.participantId))
  }
}

/** Connects participant `index` to `server` (a ws:// base URL and path); resolves once welcomed. */
export function connect(
  p: Participant,
  rec: Recorder,
  headers: Record<string, string>,
  live: boolean,
): Promise<void> {
  const ws = new WebSocket(p.server, { headers, perMessageDeflate: false })
  p.ws = ws
  ws.on('message', (data) => onMessage(p, rec, String(data)))
  ws.on('error', () => {})
  return new Promise((resolve, reject) => {
    ws.once('open', () => {
      if (!live) return resolve()
      ws.send(JSON.stringify(p.you ? { type: 'hello', resume: p.you } : { type: 'hello' }))
      const started = performance.now()
      const wait = () => {
        if (p.welcomedAt >= started) resolve()
        else if (performance.now() - started > 10_000) reject(new Error('no welcome'))
        else setTimeout(wait, 5)
      }
      wait()
    })
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)))
    ws.once('close', () => reject(new Error('closed before open')))
  })
}

/** Every participant sends a camera every 1/rate s (staggered) until `ms` passed. */
export async function drive(
  participants: Participant[],
  rec: Recorder,
  rate: number,
  ms: number,
): Promise<void> {
  const interval = 1000 / rate
  const timers = participants.map((p, i) =>
    setTimeout(
      () => {
        const tick = setInterval(() => {
          if (p.ws.readyState !== WebSocket.OPEN) return
          p.ws.send(camera(p.index))
          rec.sent += 1
        }, interval)
        timers.push(tick)
      },
      (i * interval) / participants.length,
    ),
  )
  await new Promise((resolve) => setTimeout(resolve, ms))
  for (const timer of timers) clearInterval(timer)
  // Receipts still on their way.
  await new Promise((resolve) => setTimeout(resolve, 300))
}

export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
}

/** A bare relay, the baseline: every text frame to every other client, nothing else (no auth, no parsing). */
export const BARE_RELAY = `
import { WebSocketServer } from 'ws'
const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false })
server.on('listening', () => process.send?.({ port: server.address().port }))
server.on('connection', (ws) => {
  ws.on('message', (data, isBinary) => {
    for (const other of server.clients) if (other !== ws && other.readyState === 1) other.send(data, { binary: isBinary })
  })
})
`

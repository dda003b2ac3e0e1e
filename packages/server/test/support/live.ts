// A live-session client for tests (docs/live.md): a `ws` WebSocket that keeps every message it got,
// waits for one that matches, and reports how the server closed it.
import WebSocket from 'ws'

export type LiveMessage = Record<string, unknown> & { type: string }

export interface LiveClient {
  ws: WebSocket
  messages: LiveMessage[]
  send(message: unknown): void
  /** The first message (from `from` on) that matches; rejects after `ms`. */
  waitFor(match: (message: LiveMessage) => boolean, ms?: number, from?: number): Promise<LiveMessage>
  /** Resolves with the close frame's code once the socket closed. */
  closed: Promise<{ code: number; reason: string }>
  close(): void
}

/** Opens the WebSocket; rejects with the HTTP status when the upgrade is refused. */
export function liveSocket(
  base: string,
  fileId: string,
  headers: Record<string, string> = {},
): Promise<LiveClient> {
  const url = `${base.replace(/^http/, 'ws')}/live/files/${fileId}`
  const ws = new WebSocket(url, { headers })
  const messages: LiveMessage[] = []
  const waiters = new Set<() => void>()
  ws.on('message', (data) => {
    messages.push(JSON.parse(String(data)) as LiveMessage)
    for (const wake of [...waiters]) wake()
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => {
      resolve({ code, reason: String(reason) })
      for (const wake of [...waiters]) wake()
    })
  })
  const client: LiveClient = {
    ws,
    messages,
    closed,
    send: (message) => ws.send(typeof message === 'string' ? message : JSON.stringify(message)),
    close: () => ws.close(),
    waitFor(match, ms = 5000, from = 0) {
      return new Promise((resolve, reject) => {
        const look = () => {
          const found = messages.slice(from).find(match)
          if (!found) return false
          waiters.delete(look)
          clearTimeout(timer)
          resolve(found)
          return true
        }
        const timer = setTimeout(() => {
          waiters.delete(look)
          reject(new Error(`no matching live message in ${ms} ms; got ${JSON.stringify(messages.slice(-5))}`))
        }, ms)
        if (!look()) waiters.add(look)
      })
    },
  }
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client))
    ws.once('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString()
      })
      res.on('end', () =>
        reject(
          Object.assign(new Error(`upgrade refused: ${res.statusCode} ${body}`), {
            status: res.statusCode,
            body,
          }),
        ),
      )
    })
    ws.once('error', reject)
  })
}

/** Connects with `headers` and sends hello; resolves once the welcome came. */
export async function joinLive(
  base: string,
  fileId: string,
  headers: Record<string, string>,
  hello: Record<string, unknown> = {},
): Promise<{ client: LiveClient; welcome: LiveMessage; you: string }> {
  const client = await liveSocket(base, fileId, headers)
  client.send({ type: 'hello', ...hello })
  const welcome = await client.waitFor((m) => m.type === 'welcome' || m.type === 'closed')
  if (welcome.type !== 'welcome') throw new Error(`not welcomed: ${JSON.stringify(welcome)}`)
  return { client, welcome, you: String(welcome.you) }
}

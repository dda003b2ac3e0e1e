// Mixed load against several API processes for the scale-out test: every request is recorded with
// the process it went to and when, so failures can be matched against a process that was killed.
import { randomBytes } from 'node:crypto'
import { type Client, upload, writeAttributes } from './http-client.ts'

export interface Outcome {
  kind: string
  api: number
  started: number
  ended: number
  /** HTTP status, or 0 when the connection failed. */
  status: number
}

export class Load {
  readonly outcomes: Outcome[] = []
  readonly files = new Map<string, string[]>()
  readonly dead = new Set<number>()
  running = true

  readonly apis: string[]

  constructor(apis: string[]) {
    this.apis = apis
  }

  /** An API process that is alive, alternating by `i`. */
  api(i: number): number {
    const alive = this.apis.map((_, n) => n).filter((n) => !this.dead.has(n))
    return alive[i % alive.length] ?? 0
  }

  async record(kind: string, api: number, call: () => Promise<number>): Promise<number> {
    const started = Date.now()
    let status = 0
    try {
      status = await call()
    } catch {
      status = 0
    }
    this.outcomes.push({ kind, api, started, ended: Date.now(), status })
    return status
  }

  /** A writer: uploads (a few), attribute writes and annotations, spread over the APIs. */
  async writer(client: Client, uploads: number): Promise<void> {
    const own: string[] = []
    this.files.set(client.accountId, own)
    for (let i = 0; this.running; i += 1) {
      const n = this.api(i)
      const base = this.apis[n] ?? ''
      if (own.length === 0 || (i % 6 === 0 && own.length < uploads)) {
        await this.record('upload', n, async () => {
          const res = await upload(base, client, `part-${i}.stl`, randomBytes(1024 + i))
          if (res.id) own.push(res.id)
          return res.status
        })
        continue
      }
      const file = own[i % own.length] ?? ''
      if (i % 3 === 0) {
        await this.record('annotation', n, async () => {
          const res = await fetch(`${base}/annotation/create/`, {
            method: 'POST',
            headers: { ...client.headers, 'content-type': 'application/json' },
            body: JSON.stringify({ file, name: `note ${i}` }),
          })
          await res.arrayBuffer()
          return res.status
        })
      } else {
        await this.record('attributes', n, () => writeAttributes(base, client, file, { [`n${i}`]: { i } }))
      }
    }
  }

  /** Session churn: closes its session and opens a new one, competing for the last licenses. */
  async churner(authToken: string): Promise<void> {
    for (let i = 0; this.running; i += 1) {
      const n = this.api(i)
      const base = this.apis[n] ?? ''
      const status = await this.record('session-open', n, async () => {
        const res = await fetch(`${base}/account/session`, {
          method: 'POST',
          headers: { authorization: `Bearer ${authToken}` },
        })
        const body = (await res.json()) as { jwt?: string }
        if (res.status === 200 && body.jwt) {
          const closed = await fetch(`${base}/account/session`, {
            method: 'DELETE',
            headers: { authorization: `Bearer ${authToken}`, 'x-service-session': body.jwt },
          })
          await closed.arrayBuffer()
          if (closed.status !== 200) return closed.status
        }
        return res.status
      })
      if (status === 402) await new Promise((r) => setTimeout(r, 20))
    }
  }
}

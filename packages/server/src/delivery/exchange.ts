// One HTTP exchange with a receiver, driven through undici's dispatch handler interface (attempt.ts
// vets the target, times the attempt and judges the answer).
import type { IncomingHttpHeaders } from 'node:http'
import type { Dispatcher } from 'undici'

/** A success acknowledgement is tiny; anything past this is not read. */
export const MAX_RESPONSE_BYTES = 64 * 1024

class ResponseTooLarge extends Error {}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

export interface Received {
  status: number
  contentType: string | undefined
  bytes: Buffer
  truncated: boolean
}

/**
 * One POST driven through undici's dispatch handler interface: the response is read into memory
 * as it arrives, capped, with no stream, abort signal or async iterator per attempt (on a busy
 * worker those cost more than the exchange itself). cancel() ends whatever phase is under way.
 */
export class Exchange implements Dispatcher.DispatchHandler {
  status: number | null = null
  contentType: string | undefined
  retryAfter: string | undefined
  #chunks: Buffer[] = []
  #size = 0
  #truncated = false
  #controller: Dispatcher.DispatchController | null = null
  #cancelled: Error | null = null
  #resolve: ((received: Received) => void) | null = null
  #reject: ((err: unknown) => void) | null = null

  /** Waits for `work`, or rejects as soon as the exchange is cancelled (DNS cannot be aborted). */
  guard<T>(work: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#cancelled) reject(this.#cancelled)
      this.#reject = reject
      work.then(resolve, reject)
    })
  }

  send(dispatcher: Dispatcher, url: URL, options: Omit<Dispatcher.DispatchOptions, 'origin' | 'path'>) {
    return new Promise<Received>((resolve, reject) => {
      if (this.#cancelled) {
        reject(this.#cancelled)
        return
      }
      this.#resolve = resolve
      this.#reject = reject
      dispatcher.dispatch({ ...options, origin: url.origin, path: `${url.pathname}${url.search}` }, this)
    })
  }

  cancel(reason: Error): void {
    if (this.#cancelled) return
    this.#cancelled = reason
    this.#controller?.abort(reason)
    this.#reject?.(reason)
  }

  /** The body read so far (also after a failure, for the excerpt). */
  bytes(): Buffer {
    return this.#chunks.length === 1 ? (this.#chunks[0] as Buffer) : Buffer.concat(this.#chunks)
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller
    if (this.#cancelled) controller.abort(this.#cancelled)
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    if (statusCode < 200) return // informational; the final status follows
    this.status = statusCode
    this.contentType = headerValue(headers['content-type'])
    this.retryAfter = headerValue(headers['retry-after'])
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#truncated) return
    if (this.#size + chunk.length > MAX_RESPONSE_BYTES) {
      this.#chunks.push(chunk.subarray(0, MAX_RESPONSE_BYTES - this.#size))
      this.#truncated = true
      this.#settle()
      // Dropping the connection is cheaper than draining an unbounded body.
      controller.abort(new ResponseTooLarge('response body too large'))
      return
    }
    this.#chunks.push(chunk)
    this.#size += chunk.length
  }

  onResponseEnd(): void {
    this.#settle()
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (!this.#truncated) this.#reject?.(err)
  }

  #settle(): void {
    const status = this.status ?? 0
    this.#resolve?.({
      status,
      contentType: this.contentType,
      bytes: this.bytes(),
      truncated: this.#truncated,
    })
  }
}

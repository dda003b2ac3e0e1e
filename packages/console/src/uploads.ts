// Uploads belong to the app, not to a screen: this store keeps them while the user moves between
// screens (the tray in app.tsx shows them everywhere), follows each file's conversion, and asks
// before the page is left while bytes are still in flight (`beforeunload`).
import { useEffect, useState } from 'preact/hooks'
import { ApiError, client, isSessionLost } from './api/index.ts'
import { describeError } from './util.ts'

export interface Upload {
  key: string
  name: string
  /** The folder it goes to (one queue for all folders: each entry says where). */
  parent: string
  loaded: number
  total: number
  phase: 'uploading' | 'converting' | 'ready' | 'error'
  /** While converting: the file waits for a worker (queued) or is being converted. */
  queued?: boolean
  progress: number
  fileId?: string
  error?: string | null
}

const POLL_MS = 1500
const FOLLOW_PER_TICK = 6
/** A ready upload leaves the tray by itself after this long; a failed one stays until cleared. */
const KEEP_READY_MS = 60_000

type Listener = () => void

class UploadStore {
  #uploads: readonly Upload[] = []
  readonly #listeners = new Set<Listener>()
  readonly #arrivals = new Set<(upload: Upload) => void>()
  readonly #aborts = new Map<string, AbortController>()
  #timer: ReturnType<typeof setInterval> | undefined
  #seq = 0
  #turn = 0

  get list(): readonly Upload[] {
    return this.#uploads
  }

  /** Bytes still on their way: leaving the page now would lose them. */
  get sending(): boolean {
    return this.#uploads.some((u) => u.phase === 'uploading')
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** Called when an upload's file reaches the server, and again when its conversion ends. */
  onArrival(listener: (upload: Upload) => void): () => void {
    this.#arrivals.add(listener)
    return () => this.#arrivals.delete(listener)
  }

  start(files: Iterable<File>, parent: string): void {
    for (const file of files) {
      const key = `u${++this.#seq}`
      const abort = new AbortController()
      this.#aborts.set(key, abort)
      this.#set([
        ...this.#uploads,
        { key, name: file.name, parent, loaded: 0, total: file.size, phase: 'uploading', progress: 0 },
      ])
      void client.files
        .upload(file, parent, (p) => this.#patch(key, { loaded: p.loaded, total: p.total }), abort.signal)
        .then((record) => {
          this.#patch(key, { fileId: record._id, phase: 'converting', loaded: file.size, queued: true })
          this.#arrived(key)
        })
        .catch((e: unknown) => {
          if (abort.signal.aborted) this.#set(this.#uploads.filter((u) => u.key !== key))
          else this.#patch(key, { phase: 'error', error: uploadError(e) })
        })
        .finally(() => this.#aborts.delete(key))
    }
  }

  /** Stops an upload whose bytes are still on their way (nothing is kept on the server). */
  cancel(key: string): void {
    this.#aborts.get(key)?.abort()
  }

  /** Removes the finished ones: ready and failed alike. */
  clearFinished(): void {
    this.#set(this.#uploads.filter((u) => u.phase === 'uploading' || u.phase === 'converting'))
  }

  /** Sign-out: stop everything, forget everything. */
  reset(): void {
    for (const abort of this.#aborts.values()) abort.abort()
    this.#set([])
  }

  #set(next: readonly Upload[]): void {
    this.#uploads = next
    this.#schedule()
    guardUnload(this.sending)
    for (const listener of this.#listeners) listener()
  }

  #patch(key: string, patch: Partial<Upload>): void {
    this.#set(this.#uploads.map((u) => (u.key === key ? { ...u, ...patch } : u)))
  }

  #arrived(key: string): void {
    const upload = this.#uploads.find((u) => u.key === key)
    if (upload) for (const listener of this.#arrivals) listener(upload)
  }

  /** One poll for every converting upload (conversion progress has no event). */
  #schedule(): void {
    const converting = this.#uploads.some((u) => u.phase === 'converting')
    if (converting && !this.#timer) this.#timer = setInterval(() => void this.#poll(), POLL_MS)
    if (!converting && this.#timer) {
      clearInterval(this.#timer)
      this.#timer = undefined
    }
  }

  async #poll(): Promise<void> {
    // No polling while the session is gone: the banner offers to take it back.
    if (client.connection.lost) return
    const converting = this.#uploads.filter((u) => u.phase === 'converting' && u.fileId)
    // A few files a tick, in turns: a hundred uploads converting must not mean 60 requests a second.
    const start = this.#turn % Math.max(1, converting.length)
    const batch = [...converting.slice(start), ...converting.slice(0, start)].slice(0, FOLLOW_PER_TICK)
    this.#turn = start + batch.length
    await Promise.all(batch.map((u) => this.#follow(u.key, u.fileId ?? '')))
  }

  async #follow(key: string, fileId: string): Promise<void> {
    try {
      const file = await client.files.getFile(fileId)
      if (file.state === 'queued' || file.state === 'converting') {
        this.#patch(key, { queued: file.state === 'queued', progress: file.progress ?? 0 })
        return
      }
      const failed = file.state === 'error'
      this.#patch(key, { phase: failed ? 'error' : 'ready', progress: 100, error: file.error ?? null })
      if (!failed) setTimeout(() => this.#expire(key), KEEP_READY_MS)
    } catch (e) {
      if (isSessionLost(e)) return
      this.#patch(key, { phase: 'error', error: describeError(e) })
    }
    this.#arrived(key)
  }

  #expire(key: string): void {
    if (this.#uploads.some((u) => u.key === key && u.phase === 'ready'))
      this.#set(this.#uploads.filter((u) => u.key !== key))
  }
}

/** The server's own words for a refused upload (which formats it converts, how large it may be). */
function uploadError(error: unknown): string {
  if (error instanceof ApiError && error.detail && error.status !== 401) return error.detail
  return describeError(error)
}

function askBeforeLeaving(event: BeforeUnloadEvent): void {
  event.preventDefault()
  // Older browsers show the dialog only when returnValue is set.
  event.returnValue = ''
}

/** The listener exists only while bytes are in flight (a permanent one would cost the back/forward cache). */
function guardUnload(sending: boolean): void {
  if (sending) window.addEventListener('beforeunload', askBeforeLeaving)
  else window.removeEventListener('beforeunload', askBeforeLeaving)
}

export const uploads = new UploadStore()

/** The uploads, re-rendering the caller on every change. */
export function useUploads(): readonly Upload[] {
  const [list, setList] = useState(uploads.list)
  useEffect(() => {
    setList(uploads.list)
    return uploads.subscribe(() => setList(uploads.list))
  }, [])
  return list
}

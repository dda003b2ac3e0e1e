// Waiting for a conversion: on the live event stream when the server offers it (no polling, the
// answer arrives as the conversion commits), else by polling GET /file/:id with back-off.
import { TesseraError } from './errors.ts'
import type { EventsOptions, StreamItem } from './events.ts'
import type { FileView } from './types.ts'

export type EventsOpener = (options: EventsOptions) => AsyncGenerator<StreamItem>
type GetFile = (id: string) => Promise<FileView>

const RESULTS = ['file_optimized', 'file_optimization_failed'] as const

/** The file once ready; throws CONVERSION_FAILED when it failed. */
function settled(file: FileView): FileView | null {
  if (file.state === 'ready') return file
  if (file.state === 'error') {
    throw new TesseraError({
      status: 0,
      code: 'CONVERSION_FAILED',
      detail: file.error || 'conversion failed',
    })
  }
  return null
}

const timeout = (id: string, state: string) =>
  new TesseraError({ status: 0, code: 'TIMEOUT', detail: `file ${id} is still ${state}` })
const aborted = () => new TesseraError({ status: 0, code: 'ABORTED', detail: 'waitUntilReady was aborted' })

/**
 * Subscribes first, then reads the file once (an event between the two is never missed), then
 * waits for this file's conversion result on the stream. Answers null when the stream is refused
 * (an older server, 429, no network): the caller polls instead.
 */
export async function waitOnStream(
  events: EventsOpener,
  get: GetFile,
  id: string,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<FileView | null> {
  const controller = new AbortController()
  const stop = () => controller.abort()
  signal?.addEventListener('abort', stop, { once: true })
  const timer = setTimeout(stop, Math.max(0, deadline - Date.now()))
  let opened!: () => void
  const open = new Promise<void>((resolve) => {
    opened = resolve
  })
  const stream = events({ events: RESULTS, signal: controller.signal, onOpen: () => opened() })
  try {
    const first = stream.next()
    const refused = await Promise.race([
      open.then(() => false),
      first.then(
        () => false,
        () => true,
      ),
    ])
    if (refused) return null
    let file = await get(id)
    if (settled(file)) return file
    for (let item = await first; !item.done; item = await stream.next()) {
      if (item.value.type !== 'event' || item.value.envelope.file !== id) continue
      file = await get(id)
      if (settled(file)) return file
    }
    if (signal?.aborted) throw aborted()
    throw timeout(id, file.state)
  } finally {
    // Ends the stream's request on every way out, an answer included: left open, its connection
    // would keep a script's process alive after close().
    controller.abort()
    clearTimeout(timer)
    signal?.removeEventListener('abort', stop)
    await stream.return(undefined)
  }
}

/** Polls GET /file/:id with back-off (0.25 s growing to 5 s). */
export async function waitByPolling(
  get: GetFile,
  id: string,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<FileView> {
  let delay = 250
  for (;;) {
    const file = await get(id)
    if (settled(file)) return file
    const left = deadline - Date.now()
    if (left <= 0) throw timeout(id, file.state)
    await sleep(Math.min(delay, left), signal)
    delay = Math.min(5_000, delay * 1.5)
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer)
      reject(aborted())
    }
    if (signal?.aborted) return stop()
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop)
      resolve()
    }, ms)
    signal?.addEventListener('abort', stop, { once: true })
  })
}

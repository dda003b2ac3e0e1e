// The files screen's live updates: GET /events/stream through the SDK (tessera.events(): fetch
// streaming, resumed with Last-Event-ID after drops). Events come in bursts (an upload of several
// files), so one reload follows a burst.
import { useEffect, useState } from 'preact/hooks'
import { client } from '../api/index.ts'

const FILE_EVENTS = ['file_uploaded', 'file_optimized', 'file_optimization_failed'] as const
const BURST_MS = 150

/** Calls `reload` after file events; answers whether the stream is open (else the caller polls). */
export function useLiveFileEvents(reload: () => Promise<void>, enabled: boolean): boolean {
  const [open, setOpen] = useState(false)
  useEffect(() => {
    const tessera = client.connection.tessera
    if (!enabled || !tessera) return
    const controller = new AbortController()
    let timer: ReturnType<typeof setTimeout> | undefined
    const events = tessera.events({
      events: FILE_EVENTS,
      signal: controller.signal,
      onOpen: () => setOpen(true),
    })
    void (async () => {
      try {
        for await (const item of events) {
          if (item.type !== 'event') continue
          clearTimeout(timer)
          timer = setTimeout(() => void reload(), BURST_MS)
        }
      } catch {
        // Refused (401 after sign-out, 429 past the stream limits): the caller polls instead.
      }
      setOpen(false)
    })()
    return () => {
      controller.abort()
      clearTimeout(timer)
    }
  }, [reload, enabled])
  return open
}

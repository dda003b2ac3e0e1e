// The app's one live event stream: GET /events/stream through the SDK (tessera.events(): fetch
// streaming, resumed with Last-Event-ID after drops), open while signed in with a working session.
// Screens subscribe to it (one stream per tab, whatever the screen). It is also how an idle tab
// learns that its session ended elsewhere: the server ends the stream of a taken-over session with
// a `session_ended` frame, the SDK throws its 401, and the connection raises the banner at once.
import { useEffect, useState } from 'preact/hooks'
import { ApiError, client } from '../api/index.ts'

// Uploads and conversions change a listing; shares and revokes change "Shared with me" (the server
// sends those to the account whose role changed, too).
const FILE_EVENTS = [
  'file_uploaded',
  'file_optimized',
  'file_optimization_failed',
  'file_shared',
  'file_unshared',
] as const
// Replies posted, edited or deleted by others: the open file's annotation threads and unread counts.
const DISCUSSION_EVENTS = ['annotation_discussion_updated'] as const
const LIVE_EVENTS = [...FILE_EVENTS, ...DISCUSSION_EVENTS]
const BURST_MS = 150

/** Each hears every event the stream brings: its name and the file it concerns. */
const listeners = new Set<(event: string, file: string) => void>()
const openWatchers = new Set<(open: boolean) => void>()
let streamOpen = false

function setStreamOpen(open: boolean): void {
  streamOpen = open
  for (const watcher of openWatchers) watcher(open)
}

/** Mounted once by the app: the stream while `active` (signed in, session not lost). */
export function useEventStream(active: boolean): void {
  useEffect(() => {
    const tessera = client.connection.tessera
    if (!active || !tessera) return
    const controller = new AbortController()
    const events = tessera.events({
      events: LIVE_EVENTS,
      signal: controller.signal,
      onOpen: () => setStreamOpen(true),
    })
    void (async () => {
      try {
        for await (const item of events) {
          if (item.type !== 'event') continue
          for (const listener of listeners) listener(item.envelope.event, item.envelope.file)
        }
      } catch (error) {
        // The session ended (taken over, ended, expired): the banner says so now. Any other refusal
        // (429 past the stream limits) leaves the screens polling.
        if (error instanceof ApiError && !controller.signal.aborted) client.connection.notice(error.code)
      }
      setStreamOpen(false)
    })()
    return () => {
      controller.abort()
      setStreamOpen(false)
    }
  }, [active])
}

/** Calls `reload` after a burst of file events; answers whether the stream is open (else the caller polls). */
export function useLiveFileEvents(reload: () => Promise<void>, enabled: boolean): boolean {
  return useLiveEvents(FILE_EVENTS, reload, enabled)
}

/** Calls `reload` after a burst of discussion events about `file` (replies by anyone, me included). */
export function useLiveDiscussionEvents(
  file: string,
  reload: () => Promise<void>,
  enabled: boolean,
): boolean {
  return useLiveEvents(DISCUSSION_EVENTS, reload, enabled, file)
}

function useLiveEvents(
  events: readonly string[],
  reload: () => Promise<void>,
  enabled: boolean,
  file?: string,
): boolean {
  const [open, setOpen] = useState(streamOpen)
  useEffect(() => {
    if (!enabled) return
    let timer: ReturnType<typeof setTimeout> | undefined
    const listener = (event: string, about: string) => {
      if (!events.includes(event) || (file !== undefined && about !== file)) return
      clearTimeout(timer)
      timer = setTimeout(() => void reload(), BURST_MS)
    }
    listeners.add(listener)
    openWatchers.add(setOpen)
    setOpen(streamOpen)
    return () => {
      listeners.delete(listener)
      openWatchers.delete(setOpen)
      clearTimeout(timer)
    }
  }, [reload, enabled, events, file])
  return open
}

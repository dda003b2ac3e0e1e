// A tiny history router: the console's paths are few, and the server answers index.html for them.
import { useEffect, useState } from 'preact/hooks'

export interface Location {
  path: string
  query: URLSearchParams
}

function current(): Location {
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search) }
}

const listeners = new Set<() => void>()

export function navigate(to: string, replace = false): void {
  if (to === window.location.pathname + window.location.search) return
  if (replace) window.history.replaceState(null, '', to)
  else window.history.pushState(null, '', to)
  for (const listener of listeners) listener()
}

export function useLocation(): Location {
  const [location, setLocation] = useState(current)
  useEffect(() => {
    const update = () => setLocation(current())
    listeners.add(update)
    window.addEventListener('popstate', update)
    return () => {
      listeners.delete(update)
      window.removeEventListener('popstate', update)
    }
  }, [])
  return location
}

/** Same-origin links that navigate without a page load (modifier clicks keep the browser's way). */
export function linkClick(event: MouseEvent, to: string): void {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
  event.preventDefault()
  navigate(to)
}

/** The console's URL of one of the account's folders (`/` is the root). */
export function folderUrl(path: string): string {
  return path === '/' ? '/files' : `/files?path=${encodeURIComponent(path)}`
}

/** The token of a link the page was opened with (`/#/link/<token>`), or null; follows the hash. */
export function useLinkToken(): string | null {
  const read = () => /^#\/link\/([A-Za-z0-9_-]+)$/.exec(window.location.hash)?.[1] ?? null
  const [token, setToken] = useState(read)
  useEffect(() => {
    const update = () => setToken(read())
    window.addEventListener('hashchange', update)
    return () => window.removeEventListener('hashchange', update)
  }, [])
  return token
}

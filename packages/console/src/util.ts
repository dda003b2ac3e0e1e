// Formatting and plain-words messages shared by the screens.
import { ApiError } from './api/index.ts'

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`
  const units = ['KB', 'MB', 'GB', 'TB']
  let value = n / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`
}

export function formatDate(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—'
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString()
}

// The console's own words, only where they say more than the server's `detail` can (what to do
// next in the browser) or where no server answered. Any other problem shows the server's `detail`
// (or its `title`): that is the message written for people, naming what was wrong (the e-mail that
// has no account, the field that failed). The `code` is for programs and is never shown.
const MESSAGES: Record<string, string> = {
  INVALID_CREDENTIALS: 'Wrong username or password.',
  NO_LICENSE_AVAILABLE:
    'No license is available: every license of this server is in use. Try again when someone signs out.',
  NETWORK_ERROR: 'The server could not be reached.',
  TIMEOUT: 'The server took too long to answer.',
  ABORTED: 'Cancelled.',
}

/** The problem's own words without a leading `CODE:` (never shown to people). */
function humanText(error: InstanceType<typeof ApiError>): string {
  const text = error.detail || error.title
  if (text) return text.replace(/^[A-Z][A-Z0-9_]+: /, '')
  return error.status >= 500 ? 'The server failed; try again later.' : 'The request was refused.'
}

/** A message a person can act on, for any error thrown by the API layer. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'TOO_MANY_REQUESTS') {
      const wait = error.retryAfter ? ` Try again in ${Math.ceil(error.retryAfter / 60)} min.` : ''
      return `Too many failed sign-in attempts.${wait}`
    }
    return MESSAGES[error.code] ?? humanText(error)
  }
  if (error instanceof TypeError) return MESSAGES.NETWORK_ERROR ?? 'Network error.'
  return error instanceof Error ? error.message : String(error)
}

/** Strength hint for a webhook secret: length and variety, roughly as the server judges it. */
export function secretStrength(secret: string): { label: string; ok: boolean } {
  if (secret.length === 0) return { label: '', ok: false }
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^a-zA-Z0-9]/].filter((r) => r.test(secret)).length
  const distinct = new Set(secret).size
  const bits = secret.length * Math.log2(Math.min(94, [0, 26, 52, 62, 94][classes] ?? 94))
  if (secret.length < 16) return { label: `Too short (${secret.length}/16 characters)`, ok: false }
  if (distinct < 6) return { label: 'Too repetitive', ok: false }
  if (bits < 64) return { label: 'Weak: add length or variety', ok: false }
  return { label: bits >= 100 ? 'Strong' : 'Good', ok: true }
}

/** A random secret of 32 URL-safe characters (192 bits). */
export function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24))
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
}

// Locale-aware, case-insensitive, numbers by value ("a9" before "a10"), as people sort names.
const NAMES = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' })

/** A copy sorted by name as a person expects; names equal but for case keep a stable order. */
export function sortByName<T extends { name: string }>(list: readonly T[]): T[] {
  return [...list].sort(
    (a, b) => NAMES.compare(a.name, b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  )
}

// Parsers for the human-friendly units of docs/operations.md (durations like `5m`, sizes like `2GiB`).

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
}

/** Parses `250ms`, `10s`, `5m`, `1h`, `5d` (or a bare number of milliseconds) into milliseconds. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text)
  if (!match) throw new Error(`"${text}" is not a duration (use e.g. 500ms, 10s, 5m, 1h, 5d)`)
  const value = Number(match[1]) * (DURATION_UNITS[match[2] ?? 'ms'] ?? 1)
  if (!Number.isFinite(value)) throw new Error(`"${text}" is not a finite duration`)
  return Math.round(value)
}

/** Formats milliseconds back into the largest exact unit (for --help and logs). */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const size = DURATION_UNITS[unit] ?? 1
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`
  }
  return `${ms}ms`
}

const SIZE_UNITS: Record<string, number> = {
  b: 1,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
}

/** Parses `1024`, `10MB`, `2GiB` into bytes. */
export function parseSize(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text)
  const unit = SIZE_UNITS[(match?.[2] || 'b').toLowerCase()]
  if (!match || unit === undefined) throw new Error(`"${text}" is not a size (use e.g. 1048576, 10MB, 2GiB)`)
  return Math.round(Number(match[1]) * unit)
}

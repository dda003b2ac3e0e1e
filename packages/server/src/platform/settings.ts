// How a setting (one TESSERA_* environment variable, docs/operations.md) is declared, and the one
// loader that parses and validates them all at start-up. Each owner declares its own settings beside
// its code (platform/config.ts for the kernel, modules/<feature>/settings.ts, events/settings.ts,
// delivery/settings.ts) and adds their keys to `Config` by declaration merging; the composition root
// (app/config.ts) hands the whole list to `loadSettings`, so the kernel imports no feature.
import type { Config } from './config.ts'
import { parseDuration, parseSize } from './units.ts'

export type Env = Record<string, string | undefined>

/** One variable: its name, the `Config` key it fills, its default (raw text), help and parser. */
export type Setting = {
  [K in keyof Config]: {
    name: string
    key: K
    default: string
    help: string
    parse: (raw: string, env: Env) => Config[K]
  }
}[keyof Config]

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** Parses the environment; throws one ConfigError naming every bad variable. */
export function loadSettings(
  settings: readonly Setting[],
  env: Env,
  overrides: Partial<Config> = {},
): Config {
  assertDistinct(settings)
  const problems: string[] = []
  const config: Partial<Record<keyof Config, unknown>> = {}
  for (const setting of settings) {
    const raw = env[setting.name] ?? setting.default
    try {
      config[setting.key] = setting.parse(raw, env)
    } catch (error) {
      problems.push(`${setting.name}: ${(error as Error).message}`)
    }
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`)
  return { ...(config as Config), ...overrides }
}

/** Two owners declaring one variable or one key is a programming error: caught at every start. */
function assertDistinct(settings: readonly Setting[]): void {
  const seen = new Set<string>()
  for (const { name, key } of settings) {
    for (const id of [`variable ${name}`, `key ${key}`]) {
      if (seen.has(id)) throw new Error(`setting declared twice: ${id}`)
      seen.add(id)
    }
  }
}

/** The variable table as `tessera-server serve --help` prints it. */
export function settingsHelp(settings: readonly Setting[]): string {
  const width = Math.max(...settings.map((s) => s.name.length))
  return settings
    .map((s) => `  ${s.name.padEnd(width)}  ${s.help} (default: ${s.default || 'unset'})`)
    .join('\n')
}

// --- Parsers the declarations share.

export function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (raw: string): number => {
    if (/^-\d+$/.test(raw.trim())) throw new Error(`${raw.trim()} is outside ${min}..${max}`)
    if (!/^\d+$/.test(raw.trim())) throw new Error(`"${raw}" is not a whole number`)
    const value = Number(raw)
    if (value < min || value > max) throw new Error(`${value} is outside ${min}..${max}`)
    return value
  }
}

export function duration(min = 0) {
  return (raw: string): number => {
    const value = parseDuration(raw)
    if (value < min) throw new Error(`"${raw}" is shorter than the minimum ${min}ms`)
    return value
  }
}

export function size(min: number, minText: string) {
  return (raw: string): number => {
    const value = parseSize(raw)
    if (value < min) throw new Error(`must be at least ${minText}`)
    return value
  }
}

/** A size where 0 means "no limit" (quotas). */
export function sizeOrZero(raw: string): number {
  return raw.trim() === '0' ? 0 : parseSize(raw)
}

export function boolean(raw: string): boolean {
  const value = raw.trim().toLowerCase()
  if (['true', '1', 'yes', 'on'].includes(value)) return true
  if (['false', '0', 'no', 'off'].includes(value)) return false
  throw new Error(`"${raw}" is not a boolean (true or false)`)
}

export function nonEmpty(raw: string): string {
  if (raw.trim() === '') throw new Error('must not be empty')
  return raw.trim()
}

// Configuration: every environment variable of DESIGN.md, parsed and validated once at start-up.
// The table below is the single source for parsing, defaults and `tessera serve --help`.
import path from 'node:path'
import { parseDuration, parseSize } from './units.ts'

export interface Config {
  port: number
  host: string
  dataDir: string
  /** `postgres://…` or undefined for the embedded SQLite database in the data dir. */
  databaseUrl: string | undefined
  storageUrl: string
  licenses: number
  sessionTtlMs: number
  sessionDeleteDelayMs: number
  authTokenTtlMs: number
  jwtPrivateKeyFile: string | undefined
  webhookTimeoutMs: number
  webhookRetryScheduleMs: number[]
  webhookAllowPrivateUrls: boolean
  webhookMaxInFlight: number
  webhookDisableAfterMs: number
  uploadMaxBytes: number
  conversionTimeoutMs: number
  /** Heap limit of one conversion process (V8 old space), bytes. */
  conversionMaxMemoryBytes: number
  /** Conversions run at once by one worker process. */
  conversionConcurrency: number
  logLevel: string
  /** Failed logins allowed per (username, IP) pair within `loginWindowMs` before 429. */
  loginMaxFailures: number
  loginWindowMs: number
}

type Parsed = Config[keyof Config]

interface Variable {
  name: string
  key: keyof Config
  default: string
  help: string
  parse: (raw: string, env: Env) => Parsed
}

type Env = Record<string, string | undefined>

function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (raw: string): number => {
    if (!/^\d+$/.test(raw.trim())) throw new Error(`"${raw}" is not a whole number`)
    const value = Number(raw)
    if (value < min || value > max) throw new Error(`${value} is outside ${min}..${max}`)
    return value
  }
}

function duration(min = 0) {
  return (raw: string): number => {
    const value = parseDuration(raw)
    if (value < min) throw new Error(`"${raw}" is shorter than the minimum ${min}ms`)
    return value
  }
}

function size(min: number, minText: string) {
  return (raw: string): number => {
    const value = parseSize(raw)
    if (value < min) throw new Error(`must be at least ${minText}`)
    return value
  }
}

function boolean(raw: string): boolean {
  const value = raw.trim().toLowerCase()
  if (['true', '1', 'yes', 'on'].includes(value)) return true
  if (['false', '0', 'no', 'off'].includes(value)) return false
  throw new Error(`"${raw}" is not a boolean (true or false)`)
}

function nonEmpty(raw: string): string {
  if (raw.trim() === '') throw new Error('must not be empty')
  return raw.trim()
}

export const VARIABLES: Variable[] = [
  { name: 'PORT', key: 'port', default: '8080', help: 'listen port', parse: integer(0, 65535) },
  { name: 'HOST', key: 'host', default: '127.0.0.1', help: 'listen address', parse: nonEmpty },
  {
    name: 'TESSERA_DATA_DIR',
    key: 'dataDir',
    default: './data',
    help: 'SQLite database, blobs and generated keys',
    parse: (raw) => path.resolve(nonEmpty(raw)),
  },
  {
    name: 'TESSERA_DATABASE_URL',
    key: 'databaseUrl',
    default: '',
    help: 'postgres://… for scale-out; empty = SQLite file in the data dir',
    parse: (raw) => {
      if (raw.trim() === '') return undefined
      if (!/^postgres(ql)?:\/\//.test(raw)) throw new Error('must start with postgres:// or postgresql://')
      return raw.trim()
    },
  },
  {
    name: 'TESSERA_STORAGE_URL',
    key: 'storageUrl',
    default: 'file://<data dir>/blobs',
    help: 'blob storage: file://<dir> or s3://bucket?endpoint=…&region=…',
    parse: (raw, env) => {
      if (raw === 'file://<data dir>/blobs') {
        return `file://${path.resolve(env.TESSERA_DATA_DIR?.trim() || './data', 'blobs')}`
      }
      if (!/^(file|s3):\/\//.test(raw)) throw new Error('must start with file:// or s3://')
      return raw
    },
  },
  {
    name: 'TESSERA_LICENSES',
    key: 'licenses',
    default: '10',
    help: 'license tokens in the pool',
    parse: integer(0),
  },
  {
    name: 'TESSERA_SESSION_TTL',
    key: 'sessionTtlMs',
    default: '1h',
    help: 'session lifetime without keep-alive',
    parse: duration(1),
  },
  {
    name: 'TESSERA_SESSION_DELETE_DELAY',
    key: 'sessionDeleteDelayMs',
    default: '5m',
    help: 'delay before a deleted session stops working',
    parse: duration(0),
  },
  {
    name: 'TESSERA_AUTH_TOKEN_TTL',
    key: 'authTokenTtlMs',
    default: '24h',
    help: 'lifetime of auth tokens issued at login (and max age of SSO tokens without exp)',
    parse: duration(1000),
  },
  {
    name: 'TESSERA_JWT_PRIVATE_KEY_FILE',
    key: 'jwtPrivateKeyFile',
    default: '',
    help: 'RS256 PEM private key; empty = generated at first start in the data dir',
    parse: (raw) => (raw.trim() === '' ? undefined : path.resolve(raw.trim())),
  },
  {
    name: 'TESSERA_WEBHOOK_TIMEOUT',
    key: 'webhookTimeoutMs',
    default: '10s',
    help: 'time a webhook receiver has to answer',
    parse: duration(1),
  },
  {
    name: 'TESSERA_WEBHOOK_RETRY_SCHEDULE',
    key: 'webhookRetryScheduleMs',
    default: '0s,5s,5m,30m,2h,5h,10h,10h',
    help: 'delay before each delivery attempt (comma-separated durations)',
    parse: (raw) => {
      const steps = raw.split(',').map((step) => parseDuration(step))
      if (steps.length === 0 || steps.length > 50) throw new Error('must list 1 to 50 durations')
      return steps
    },
  },
  {
    name: 'TESSERA_WEBHOOK_ALLOW_PRIVATE_URLS',
    key: 'webhookAllowPrivateUrls',
    default: 'false',
    help: 'allow loopback/private/link-local webhook targets (tests, development)',
    parse: boolean,
  },
  {
    name: 'TESSERA_WEBHOOK_MAX_IN_FLIGHT',
    key: 'webhookMaxInFlight',
    default: '8',
    help: 'concurrent delivery attempts per webhook',
    parse: integer(1, 1000),
  },
  {
    name: 'TESSERA_WEBHOOK_DISABLE_AFTER',
    key: 'webhookDisableAfterMs',
    default: '5d',
    help: 'a webhook failing without a success this long is disabled',
    parse: duration(1),
  },
  {
    name: 'TESSERA_UPLOAD_MAX_BYTES',
    key: 'uploadMaxBytes',
    default: '2GiB',
    help: 'larger uploads get 413',
    parse: size(1, '1 byte'),
  },
  {
    name: 'TESSERA_CONVERSION_TIMEOUT',
    key: 'conversionTimeoutMs',
    default: '10m',
    help: 'time budget of one conversion',
    parse: duration(1000),
  },
  {
    name: 'TESSERA_CONVERSION_MAX_MEMORY',
    key: 'conversionMaxMemoryBytes',
    default: '4GiB',
    help: 'heap limit of one conversion process',
    parse: size(128 * 1024 * 1024, '128MiB'),
  },
  {
    name: 'TESSERA_CONVERSION_CONCURRENCY',
    key: 'conversionConcurrency',
    default: '1',
    help: 'conversions one worker process runs at once (each in its own child process)',
    parse: integer(1, 64),
  },
  {
    name: 'TESSERA_LOG_LEVEL',
    key: 'logLevel',
    default: 'info',
    help: 'fatal, error, warn, info, debug, trace or silent',
    parse: (raw) => {
      const level = raw.trim()
      if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(level)) {
        throw new Error(`"${raw}" is not a log level`)
      }
      return level
    },
  },
  {
    name: 'TESSERA_LOGIN_MAX_FAILURES',
    key: 'loginMaxFailures',
    default: '10',
    help: 'failed logins per username and IP within the window before 429',
    parse: integer(1),
  },
  {
    name: 'TESSERA_LOGIN_WINDOW',
    key: 'loginWindowMs',
    default: '15m',
    help: 'window of the failed-login limit',
    parse: duration(1000),
  },
]

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** Parses the environment; throws one ConfigError naming every bad variable. */
export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const problems: string[] = []
  const config: Partial<Record<keyof Config, Parsed>> = {}
  for (const variable of VARIABLES) {
    const raw = env[variable.name] ?? variable.default
    try {
      config[variable.key] = variable.parse(raw, env)
    } catch (error) {
      problems.push(`${variable.name}: ${(error as Error).message}`)
    }
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`)
  return { ...(config as Config), ...overrides }
}

/** The variable table as `tessera serve --help` prints it. */
export function configHelp(): string {
  const width = Math.max(...VARIABLES.map((v) => v.name.length))
  return VARIABLES.map((v) => `  ${v.name.padEnd(width)}  ${v.help} (default: ${v.default || 'unset'})`).join(
    '\n',
  )
}

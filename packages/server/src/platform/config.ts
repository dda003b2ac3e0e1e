// biome-ignore-all lint/style/noExcessiveLinesPerFile: the variable table is one list by design (parsing, defaults and help in one place)
// Configuration: every TESSERA_* environment variable (docs/operations.md), parsed and validated once
// at start-up. The table below is the single source for parsing, defaults and `tessera serve --help`.
import path from 'node:path'
import { parseTrustProxy, type TrustProxy } from './trust-proxy.ts'
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
  /** Earlier revisions kept per file (their rows and original blobs); 0 keeps none. */
  fileRevisionsKept: number
  conversionTimeoutMs: number
  /** Real memory (resident set) of one conversion process, bytes; its V8 heap limit is the same. */
  conversionMaxMemoryBytes: number
  /** Conversions run at once by one worker process. */
  conversionConcurrency: number
  /** Conversions one account may have running at once, across every worker process; 0: no limit. */
  conversionAccountConcurrency: number
  logLevel: string
  /** Failed logins allowed per (username, IP) pair within `loginWindowMs` before 429. */
  loginMaxFailures: number
  loginWindowMs: number
  /** Time a client has to send a request's headers. */
  httpHeadersTimeoutMs: number
  /** Idle time after which a keep-alive connection is closed. */
  httpKeepAliveTimeoutMs: number
  /** Open connections per server process; more are refused at accept time. */
  httpMaxConnections: number
  /** Total time a client has to send a JSON (any non-upload) body. */
  jsonBodyTimeoutMs: number
  /** An upload slower than this (bytes per second, over `uploadRateWindowMs`) is cut off. */
  uploadMinBytesPerSecond: number
  uploadRateWindowMs: number
  /** Bearer token `/metrics` requires; undefined = open (as before). */
  metricsToken: string | undefined
  /** Where `tessera serve` (and `tessera worker`) serve the operations routes apart from the API. */
  metricsListen: { host: string; port: number } | undefined
  /** `webp`: converted textures stored as WebP when smaller; `keep`: PNG/JPEG kept. */
  conversionTextures: 'webp' | 'keep'
  // Hardening batch 3.
  /** Webhook create/patch/delete calls per account per minute, per process. */
  webhookManageRate: number
  /** `POST /webhook/:id/test` calls, and apart `POST /events/test` calls, per account per minute, per process. */
  webhookTestRate: number
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
    if (/^-\d+$/.test(raw.trim())) throw new Error(`${raw.trim()} is outside ${min}..${max}`)
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

const VARIABLES: Variable[] = [
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
    help: 'license tokens in the pool (at least 1)',
    parse: integer(1),
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
    name: 'TESSERA_FILE_REVISIONS_KEPT',
    key: 'fileRevisionsKept',
    default: '10',
    help: 'earlier revisions kept per file (original bytes, downloadable); 0 = keep none',
    parse: integer(0, 1000),
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
    help: 'memory (resident set) one conversion process may use; past it the conversion is killed and fails',
    // A small STL already takes ~140 MB resident (Node, glTF-Transform, meshoptimizer), a small STEP
    // ~340 MB (OpenCascade's wasm): below this no conversion of any format could run.
    parse: size(512 * 1024 * 1024, '512MiB'),
  },
  {
    name: 'TESSERA_CONVERSION_CONCURRENCY',
    key: 'conversionConcurrency',
    default: '1',
    help: 'conversions one worker process runs at once (each in its own child process)',
    parse: integer(1, 64),
  },
  {
    name: 'TESSERA_CONVERSION_ACCOUNT_CONCURRENCY',
    key: 'conversionAccountConcurrency',
    default: '0',
    help: 'conversions one account may have running at once across all workers (0 = no limit; a slot stays free for others)',
    parse: integer(0, 1024),
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
    help: 'failed logins per existing username and client within the window before 429 (docs: login budgets)',
    parse: integer(1),
  },
  {
    name: 'TESSERA_LOGIN_WINDOW',
    key: 'loginWindowMs',
    default: '15m',
    help: 'window of the failed-login limit',
    parse: duration(1000),
  },
  {
    name: 'TESSERA_HTTP_HEADERS_TIMEOUT',
    key: 'httpHeadersTimeoutMs',
    default: '30s',
    help: 'time a client has to send the request headers (then 408 and the connection closes)',
    parse: duration(100),
  },
  {
    name: 'TESSERA_HTTP_KEEP_ALIVE_TIMEOUT',
    key: 'httpKeepAliveTimeoutMs',
    default: '72s',
    help: 'idle keep-alive connections are closed after this (keep above a proxy idle timeout)',
    parse: duration(100),
  },
  {
    name: 'TESSERA_HTTP_MAX_CONNECTIONS',
    key: 'httpMaxConnections',
    default: '4096',
    help: 'open connections per process; further ones are closed at once',
    parse: integer(1, 1_000_000),
  },
  {
    name: 'TESSERA_JSON_BODY_TIMEOUT',
    key: 'jsonBodyTimeoutMs',
    default: '30s',
    help: 'total time to send a request body other than an upload (then 408, connection closed)',
    parse: duration(100),
  },
  {
    name: 'TESSERA_UPLOAD_MIN_RATE',
    key: 'uploadMinBytesPerSecond',
    default: '8KiB',
    help: 'slowest upload speed per second, averaged over TESSERA_UPLOAD_RATE_WINDOW; slower ones are cut off',
    parse: size(1, '1 byte'),
  },
  {
    name: 'TESSERA_UPLOAD_RATE_WINDOW',
    key: 'uploadRateWindowMs',
    default: '20s',
    help: 'window over which the upload speed is measured',
    parse: duration(100),
  },
  {
    name: 'TESSERA_METRICS_TOKEN',
    key: 'metricsToken',
    default: '',
    help: 'when set, /metrics needs "Authorization: Bearer <token>" (at least 16 characters)',
    parse: (raw) => {
      if (raw === '') return undefined
      if (raw.trim().length < 16 || /\s/.test(raw.trim())) {
        throw new Error('must be at least 16 characters without spaces')
      }
      return raw.trim()
    },
  },
  {
    name: 'TESSERA_METRICS_LISTEN',
    key: 'metricsListen',
    default: '',
    help: 'host:port (or port, on HOST) for /metrics, /healthz, /readyz apart from the API; empty = on the API port',
    parse: (raw, env) => parseListen(raw, env.HOST?.trim() || '127.0.0.1'),
  },
  {
    // Read by the conversion's child process from its inherited environment (pipeline/textures.ts).
    name: 'TESSERA_CONVERSION_TEXTURES',
    key: 'conversionTextures',
    default: 'webp',
    help: 'webp: textures re-encoded as WebP when smaller; keep: PNG/JPEG kept (viewers without WebP)',
    parse: (raw) => {
      const mode = raw.trim().toLowerCase()
      if (mode !== 'webp' && mode !== 'keep') throw new Error(`"${raw}" is not webp or keep`)
      return mode
    },
  },
  // Hardening batch 3.
  {
    name: 'TESSERA_WEBHOOK_MANAGE_RATE',
    key: 'webhookManageRate',
    default: '30',
    help: 'webhook create, patch and delete calls per account per minute (per process) before 429',
    parse: integer(1),
  },
  {
    name: 'TESSERA_WEBHOOK_TEST_RATE',
    key: 'webhookTestRate',
    default: '10',
    help: 'webhook test deliveries, and apart stream test events, per account per minute (per process) before 429',
    parse: integer(1),
  },
]

function parseListen(raw: string, defaultHost: string): { host: string; port: number } | undefined {
  const text = raw.trim()
  if (text === '') return undefined
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d+)$/.exec(text)
  if (!match) throw new Error(`"${raw}" is not host:port or port`)
  const port = integer(1, 65535)(match[2] ?? '')
  return { host: match[1]?.replace(/^\[|\]$/g, '') ?? defaultHost, port }
}

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

// --- Scene attribute limits (hardening batch 2). Declaration merging adds the keys to Config, and the
// variables join the same table, so `loadConfig` validates them once at start-up with the rest.
export interface Config {
  /** Attributes one node may hold. */
  sceneNodeMaxAttributes: number
  /** Bytes (UTF-8 name + JSON value) of one node's attributes. */
  sceneNodeMaxBytes: number
  /** Attributes one file may hold. */
  sceneFileMaxAttributes: number
  /** Bytes of all of one file's attributes. */
  sceneFileMaxBytes: number
  /** Nodes one attribute write may name. */
  sceneWriteMaxNodes: number
  /** Bytes of the nodes one write names, once written (what the write stores and answers). */
  sceneWriteMaxBytes: number
  /** Nodes per page of `GET /scene/attributes` (its default and maximum `limit`). */
  scenePageMaxNodes: number
  /** A page ends at the first node boundary past this many bytes (it always holds one node). */
  scenePageMaxBytes: number
}

VARIABLES.push(
  {
    name: 'TESSERA_SCENE_NODE_MAX_ATTRIBUTES',
    key: 'sceneNodeMaxAttributes',
    default: '100',
    help: 'attributes per scene node (more: 413 SCENE_NODE_TOO_LARGE)',
    parse: integer(1, 100_000),
  },
  {
    name: 'TESSERA_SCENE_NODE_MAX_BYTES',
    key: 'sceneNodeMaxBytes',
    default: '64KiB',
    help: 'bytes of one scene node’s attributes, names and JSON values (more: 413 SCENE_NODE_TOO_LARGE)',
    parse: size(1024, '1KiB'),
  },
  {
    name: 'TESSERA_SCENE_FILE_MAX_ATTRIBUTES',
    key: 'sceneFileMaxAttributes',
    default: '100000',
    help: 'scene attributes per file (more: 413 SCENE_FILE_TOO_LARGE)',
    parse: integer(1),
  },
  {
    name: 'TESSERA_SCENE_FILE_MAX_BYTES',
    key: 'sceneFileMaxBytes',
    default: '64MiB',
    help: 'bytes of one file’s scene attributes (more: 413 SCENE_FILE_TOO_LARGE)',
    parse: size(1024, '1KiB'),
  },
  {
    name: 'TESSERA_SCENE_WRITE_MAX_NODES',
    key: 'sceneWriteMaxNodes',
    default: '10000',
    help: 'nodes one attribute write may name (more: 413 SCENE_WRITE_TOO_LARGE)',
    parse: integer(1, 10_000),
  },
  {
    name: 'TESSERA_SCENE_WRITE_MAX_BYTES',
    key: 'sceneWriteMaxBytes',
    default: '4MiB',
    help: 'bytes of the nodes one attribute write names, once written (more: 413 SCENE_WRITE_TOO_LARGE)',
    parse: size(1024, '1KiB'),
  },
  {
    name: 'TESSERA_SCENE_PAGE_MAX_NODES',
    key: 'scenePageMaxNodes',
    default: '1000',
    help: 'nodes per page of GET /scene/attributes (default and maximum limit)',
    parse: integer(1, 100_000),
  },
  {
    name: 'TESSERA_SCENE_PAGE_MAX_BYTES',
    key: 'scenePageMaxBytes',
    default: '2MiB',
    help: 'a page of GET /scene/attributes ends at the first node past this many bytes',
    parse: size(1024, '1KiB'),
  },
)

// Browsers (cookie sign-in, admin console).
export interface Config {
  /** Exact origins (`https://console.example.com`) allowed to call the API cross-origin with credentials. */
  corsOrigins: string[]
}

/** Comma-separated exact origins: scheme, host and port only (what a browser sends as `Origin`). */
function origins(raw: string): string[] {
  const list = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
  for (const entry of list) {
    let origin: string
    try {
      origin = new URL(entry).origin
    } catch {
      throw new Error(`"${entry}" is not an origin (scheme://host[:port])`)
    }
    if (origin !== entry || !/^https?:/.test(entry)) {
      throw new Error(`"${entry}" is not an exact http(s) origin (scheme://host[:port], no path)`)
    }
  }
  return list
}

// Behind a reverse proxy: whose X-Forwarded-* headers give the client address, protocol and host.
export interface Config {
  /** Fastify's `trustProxy`: false (default), true, a hop count, or the proxies' addresses. */
  trustProxy: TrustProxy
}

VARIABLES.push({
  name: 'TESSERA_TRUST_PROXY',
  key: 'trustProxy',
  default: 'false',
  help:
    'trust X-Forwarded-For/-Proto/-Host from these peers: false, true (any peer), a hop count, or ' +
    'comma-separated IPs/CIDRs/loopback (the proxies); feeds the client IP of login budgets and Secure cookies',
  parse: parseTrustProxy,
})

VARIABLES.push({
  name: 'TESSERA_CORS_ORIGINS',
  key: 'corsOrigins',
  default: '',
  help: 'comma-separated origins allowed to call the API from a browser with credentials (CORS); empty = none',
  parse: origins,
})
// --- The live event stream (GET /events/stream, stream/hub.ts): bounds on the streams a
// process holds and on what one slow reader may make it buffer.
export interface Config {
  /** Open streams one account may hold per process (more: 429 STREAM_LIMIT_REACHED). */
  streamsPerAccount: number
  /** Open streams per process, all accounts together (more: 429 STREAMS_BUSY). */
  streamsMax: number
  /** A `: ping` comment this often on every stream. */
  streamHeartbeatMs: number
  /** A stream whose unsent bytes pass this is cut off (the reader resumes with Last-Event-ID). */
  streamBufferLimit: number
  /** SQLite: how often the hub looks for events committed by other processes on the same file. */
  streamPollMs: number
}

VARIABLES.push(
  {
    name: 'TESSERA_STREAMS_PER_ACCOUNT',
    key: 'streamsPerAccount',
    default: '5',
    help: 'open event streams per account and process (more: 429 STREAM_LIMIT_REACHED)',
    parse: integer(1, 10_000),
  },
  {
    name: 'TESSERA_STREAMS_MAX',
    key: 'streamsMax',
    default: '1000',
    help: 'open event streams per process (more: 429 STREAMS_BUSY)',
    parse: integer(1, 1_000_000),
  },
  {
    name: 'TESSERA_STREAM_HEARTBEAT',
    key: 'streamHeartbeatMs',
    default: '15s',
    help: 'interval of the `: ping` comment on every event stream',
    parse: duration(10),
  },
  {
    name: 'TESSERA_STREAM_BUFFER_LIMIT',
    key: 'streamBufferLimit',
    default: '1MiB',
    help: 'unsent bytes after which a slow event stream reader is disconnected',
    parse: size(4096, '4KiB'),
  },
  {
    name: 'TESSERA_STREAM_POLL',
    key: 'streamPollMs',
    default: '250ms',
    help: 'SQLite: how often event streams look for events committed by other processes',
    parse: duration(10),
  },
)

// --- Per-file item limits (hardening batch 4): annotations, configurations and shares of one file,
// and the pages of the annotation and configuration listings.
export interface Config {
  /** Annotations one file may hold. */
  fileMaxAnnotations: number
  /** Bytes of the stored text and JSON of one file's annotations. */
  fileMaxAnnotationBytes: number
  /** Configurations one file may hold. */
  fileMaxConfigurations: number
  /** Bytes of the stored text and JSON of one file's configurations. */
  fileMaxConfigurationBytes: number
  /** Accounts one file may be shared with. */
  fileMaxShares: number
  /** Items per page of the annotation and configuration listings (their default and maximum `limit`). */
  itemPageMaxItems: number
  /** A listing page ends at the first item past this many stored bytes (it always holds one item). */
  itemPageMaxBytes: number
}

VARIABLES.push(
  {
    name: 'TESSERA_FILE_MAX_ANNOTATIONS',
    key: 'fileMaxAnnotations',
    default: '10000',
    help: 'annotations per file (more: 409 FILE_ITEMS_LIMIT_REACHED)',
    parse: integer(1, 1_000_000),
  },
  {
    name: 'TESSERA_FILE_MAX_ANNOTATION_BYTES',
    key: 'fileMaxAnnotationBytes',
    default: '64MiB',
    help: 'bytes of one file’s annotations, stored text and JSON (more: 413 FILE_ITEMS_TOO_LARGE)',
    parse: size(1024, '1KiB'),
  },
  {
    name: 'TESSERA_FILE_MAX_CONFIGURATIONS',
    key: 'fileMaxConfigurations',
    default: '10000',
    help: 'configurations per file (more: 409 FILE_ITEMS_LIMIT_REACHED)',
    parse: integer(1, 1_000_000),
  },
  {
    name: 'TESSERA_FILE_MAX_CONFIGURATION_BYTES',
    key: 'fileMaxConfigurationBytes',
    default: '64MiB',
    help: 'bytes of one file’s configurations, stored text and JSON (more: 413 FILE_ITEMS_TOO_LARGE)',
    parse: size(1024, '1KiB'),
  },
  {
    name: 'TESSERA_FILE_MAX_SHARES',
    key: 'fileMaxShares',
    default: '1000',
    help: 'accounts one file may be shared with (more: 409 SHARE_LIMIT_REACHED)',
    parse: integer(1, 100_000),
  },
  {
    name: 'TESSERA_ITEM_PAGE_MAX_ITEMS',
    key: 'itemPageMaxItems',
    default: '1000',
    help: 'items per page of the annotation and configuration listings (default and maximum limit)',
    parse: integer(1, 100_000),
  },
  {
    name: 'TESSERA_ITEM_PAGE_MAX_BYTES',
    key: 'itemPageMaxBytes',
    default: '2MiB',
    help: 'a page of the annotation and configuration listings ends at the first item past this many bytes',
    parse: size(1024, '1KiB'),
  },
)

// What the event log keeps (events/retention.ts) and what one account may store.
export interface Config {
  /** Bytes of one event's `data` JSON; past it an attribute_updated event carries names, not values. */
  eventMaxDataBytes: number
  /** Events (with their finished deliveries and stream rows) older than this are pruned. */
  eventRetentionMs: number
  /** At most this many events are kept; the oldest finished ones beyond it are pruned. */
  eventMaxRows: number
  /** A deleted file's finished events are pruned once this old (its readers lost the file). */
  eventDeletedFileRetentionMs: number
  /** Bytes of file revisions (current and kept ones) one account may own; 0 = no quota. */
  accountQuotaBytes: number
  /** Bytes of scene attributes over all files one account owns; 0 = no quota. */
  accountMaxAttributeBytes: number
  // Idempotency-Key of create requests (platform/idempotency.ts, docs/api.md "Idempotent requests").
  /** How long a key answers its first answer again. */
  idempotencyTtlMs: number
  /** Keys kept per account; past it the oldest answered ones go. */
  idempotencyMaxKeys: number
}

VARIABLES.push(
  {
    name: 'TESSERA_EVENT_MAX_DATA_BYTES',
    key: 'eventMaxDataBytes',
    default: '64KiB',
    help: 'bytes of one event’s data; a larger attribute_updated event carries node IDs and names only (truncated)',
    parse: size(1024, '1KiB'),
  },
  {
    name: 'TESSERA_EVENT_RETENTION',
    key: 'eventRetentionMs',
    default: '30d',
    help: 'events, their finished deliveries (the delivery log) and stream rows are pruned past this age',
    parse: duration(3_600_000),
  },
  {
    name: 'TESSERA_EVENT_MAX_ROWS',
    key: 'eventMaxRows',
    default: '1000000',
    help: 'events kept at most; the oldest finished ones beyond it are pruned',
    parse: integer(1000),
  },
  {
    name: 'TESSERA_EVENT_DELETED_FILE_RETENTION',
    key: 'eventDeletedFileRetentionMs',
    default: '1h',
    help: 'a deleted file’s events are pruned once this old and delivered',
    parse: duration(0),
  },
  {
    name: 'TESSERA_ACCOUNT_QUOTA_BYTES',
    key: 'accountQuotaBytes',
    default: '0',
    help: 'bytes of uploaded files (with kept revisions) one account may own; 0 = none (more: 413 QUOTA_EXCEEDED)',
    parse: (raw) => (raw.trim() === '0' ? 0 : parseSize(raw)),
  },
  {
    name: 'TESSERA_ACCOUNT_MAX_ATTRIBUTE_BYTES',
    key: 'accountMaxAttributeBytes',
    default: '0',
    help: 'bytes of scene attributes over all files of one account; 0 = none (more: 413 QUOTA_EXCEEDED)',
    parse: (raw) => (raw.trim() === '0' ? 0 : parseSize(raw)),
  },
  {
    name: 'TESSERA_IDEMPOTENCY_TTL',
    key: 'idempotencyTtlMs',
    default: '24h',
    help: 'how long an Idempotency-Key replays its first answer (then it may be used again)',
    parse: duration(1000),
  },
  {
    name: 'TESSERA_IDEMPOTENCY_MAX_KEYS',
    key: 'idempotencyMaxKeys',
    default: '10000',
    help: 'Idempotency-Keys kept per account; past it the oldest answered ones are forgotten',
    parse: integer(1, 10_000_000),
  },
)

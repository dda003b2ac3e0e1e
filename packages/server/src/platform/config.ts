// Configuration: every TESSERA_* environment variable (docs/operations.md), parsed and validated once
// at start-up. `Config` holds the kernel's settings, declared below; every other owner declares its
// own beside its code (modules/<feature>/settings.ts, events/settings.ts, delivery/settings.ts) and adds
// its keys to `Config` by declaration merging. The composition root (app/config.ts) assembles the
// declarations and parses them with platform/settings.ts, the single source of `tessera-server serve --help`.
import path from 'node:path'
import { duration, integer, nonEmpty, type Setting, size } from './settings.ts'
import { parseTrustProxy, type TrustProxy } from './trust-proxy.ts'

export interface Config {
  port: number
  host: string
  dataDir: string
  /** `postgres://…` or undefined for the embedded SQLite database in the data dir. */
  databaseUrl: string | undefined
  storageUrl: string
  authTokenTtlMs: number
  jwtPrivateKeyFile: string | undefined
  logLevel: string
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
  /** Where `tessera-server serve` (and `tessera-server worker`) serve the operations routes apart from the API. */
  metricsListen: { host: string; port: number } | undefined
  /** Fastify's `trustProxy`: false (default), true, a hop count, or the proxies' addresses. */
  trustProxy: TrustProxy
  /** Exact origins (`https://console.example.com`) allowed to call the API cross-origin with credentials. */
  corsOrigins: string[]
  /** How long a key answers its first answer again. */
  idempotencyTtlMs: number
  /** Keys kept per account; past it the oldest answered ones go. */
  idempotencyMaxKeys: number
}

/** The kernel's own variables: the listener, storage, keys, logs, HTTP limits, metrics, proxies, CORS and idempotency. */
export const kernelSettings = [
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
    name: 'TESSERA_TRUST_PROXY',
    key: 'trustProxy',
    default: 'false',
    help:
      'trust X-Forwarded-For/-Proto/-Host from these peers: false, true (any peer), a hop count, or ' +
      'comma-separated IPs/CIDRs/loopback (the proxies); feeds the client IP of login budgets and Secure cookies',
    parse: parseTrustProxy,
  },
  {
    name: 'TESSERA_CORS_ORIGINS',
    key: 'corsOrigins',
    default: '',
    help: 'comma-separated origins allowed to call the API from a browser with credentials (CORS); empty = none',
    parse: origins,
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
] satisfies Setting[]

function parseListen(raw: string, defaultHost: string): { host: string; port: number } | undefined {
  const text = raw.trim()
  if (text === '') return undefined
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d+)$/.exec(text)
  if (!match) throw new Error(`"${raw}" is not host:port or port`)
  const port = integer(1, 65535)(match[2] ?? '')
  return { host: match[1]?.replace(/^\[|\]$/g, '') ?? defaultHost, port }
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

// pino options shared by the API and workers. Request IDs come from `x-request-id` when the caller
// sends a sane one, otherwise are generated. Credentials never reach a log line: fastify logs no
// headers or bodies by default, and the paths below are redacted in case code logs them anyway.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyBaseLogger } from 'fastify'
import type { Bindings, ChildLoggerOptions, Level, Logger, LoggerOptions } from 'pino'

const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-service-session"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'password',
  '*.password',
  'secretToken',
  '*.secretToken',
  'token',
  '*.token',
  'jwt',
  '*.jwt',
]

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  }
}

export function requestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id']
  if (typeof incoming === 'string' && /^[A-Za-z0-9._-]{1,128}$/.test(incoming)) return incoming
  return randomUUID()
}

/** What the lazy request logger needs of its parent: pino's level check. */
type LevelAwareLogger = FastifyBaseLogger & Pick<Logger, 'isLevelEnabled'>

/**
 * Fastify's childLoggerFactory. A request's logger is the usual child with the request ID, but made
 * on the first call at an enabled level: most requests log nothing at the usual levels, and making
 * a pino child (its bindings serialized through the redaction) costs ~2 µs per request. The parent
 * is the logger Fastify passes (ours plus its req/res serializers), never our root logger.
 */
export function requestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  // A route with its own level or serializers gets its child at once: rare, not worth a case.
  if (Object.keys(options).length > 0 || !('isLevelEnabled' in logger)) return logger.child(bindings, options)
  return new LazyChildLogger(logger as LevelAwareLogger, bindings)
}

class LazyChildLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined
  readonly #parent: LevelAwareLogger
  readonly #bindings: Bindings
  constructor(parent: LevelAwareLogger, bindings: Bindings) {
    this.#parent = parent
    this.#bindings = bindings
  }
  #made(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings)
    return this.#child
  }
  #log(level: Level, args: unknown[]): void {
    if (this.#child === undefined && !this.#parent.isLevelEnabled(level)) return
    const child = this.#made()
    Reflect.apply(child[level], child, args)
  }
  get level(): string {
    return (this.#child ?? this.#parent).level
  }
  set level(level: string) {
    this.#made().level = level
  }
  fatal(...args: unknown[]): void {
    this.#log('fatal', args)
  }
  error(...args: unknown[]): void {
    this.#log('error', args)
  }
  warn(...args: unknown[]): void {
    this.#log('warn', args)
  }
  info(...args: unknown[]): void {
    this.#log('info', args)
  }
  debug(...args: unknown[]): void {
    this.#log('debug', args)
  }
  trace(...args: unknown[]): void {
    this.#log('trace', args)
  }
  silent(): void {}
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#made().child(bindings, options)
  }
}

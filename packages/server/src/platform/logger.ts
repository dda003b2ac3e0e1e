// pino options shared by the API and workers. Request IDs come from `x-request-id` when the caller
// sends a sane one, otherwise are generated. Credentials never reach a log line: fastify logs no
// headers or bodies by default, and the paths below are redacted in case code logs them anyway.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { DestinationStream, LoggerOptions } from 'pino'

export const REDACT_PATHS = [
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

export interface LoggerSetup {
  level: string
  /** Tests pass a stream to capture log lines. */
  stream?: DestinationStream
}

export function requestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id']
  if (typeof incoming === 'string' && /^[A-Za-z0-9._-]{1,128}$/.test(incoming)) return incoming
  return randomUUID()
}

// The settings modules/sessions/ owns: the license pool and session lifetimes. Declared here,
// assembled and parsed once at start-up with every other owner's by app/config.ts
// (platform/settings.ts describes the shape).
import { duration, integer, type Setting } from '../../platform/settings.ts'

declare module '../../platform/config.ts' {
  interface Config {
    licenses: number
    sessionTtlMs: number
    sessionDeleteDelayMs: number
  }
}

export const sessionSettings = [
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
] satisfies Setting[]

// The settings modules/accounts/ owns: the failed-login budgets (login-budgets.ts). Declared here,
// assembled and parsed once at start-up with every other owner's by app/config.ts
// (platform/settings.ts describes the shape).
import { duration, integer, type Setting } from '../../platform/settings.ts'

declare module '../../platform/config.ts' {
  interface Config {
    /** Failed logins allowed per (username, IP) pair within `loginWindowMs` before 429. */
    loginMaxFailures: number
    loginWindowMs: number
  }
}

export const accountSettings = [
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
] satisfies Setting[]

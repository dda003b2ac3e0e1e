// The settings modules/links/ owns: link sessions' lifetime and the rate limits of opening links and
// of link sessions' requests. Declared here, parsed once at start-up by app/config.ts.
import { duration, integer, type Setting } from '../../platform/settings.ts'

declare module '../../platform/config.ts' {
  interface Config {
    linkSessionTtlMs: number
    linkOpenRate: number
    linkSessionRate: number
  }
}

export const linkSettings = [
  {
    name: 'TESSERA_LINK_SESSION_TTL',
    key: 'linkSessionTtlMs',
    default: '15m',
    help: 'lifetime of a link session (renewed with GET /links/session while the link lives)',
    parse: duration(1000),
  },
  {
    name: 'TESSERA_LINK_OPEN_RATE',
    key: 'linkOpenRate',
    default: '20',
    help: 'POST /links/open calls per client address per minute (bounds password guessing)',
    parse: integer(1),
  },
  {
    name: 'TESSERA_LINK_SESSION_RATE',
    key: 'linkSessionRate',
    default: '600',
    help: 'requests per link per minute, all its link sessions together',
    parse: integer(1),
  },
] satisfies Setting[]

// The settings delivery/ owns: how webhook deliveries are sent (modules/webhooks reads the private-URL
// switch too). Declared here, assembled and parsed once at start-up with every other owner's by
// app/config.ts (platform/settings.ts describes the shape).
import { boolean, duration, integer, type Setting } from '../platform/settings.ts'

declare module '../platform/config.ts' {
  interface Config {
    webhookTimeoutMs: number
    webhookAllowPrivateUrls: boolean
    webhookMaxInFlight: number
    webhookDisableAfterMs: number
  }
}

export const deliverySettings = [
  {
    name: 'TESSERA_WEBHOOK_TIMEOUT',
    key: 'webhookTimeoutMs',
    default: '10s',
    help: 'time a webhook receiver has to answer',
    parse: duration(1),
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
] satisfies Setting[]

// The settings modules/webhooks/ owns: the per-account rates of webhook management and test calls (the
// stream module's test events share the test rate). Declared here, assembled and parsed once at start-
// up with every other owner's by app/config.ts (platform/settings.ts describes the shape).
import { integer, type Setting } from '../../platform/settings.ts'

declare module '../../platform/config.ts' {
  interface Config {
    /** Webhook create/patch/delete calls per account per minute, per process. */
    webhookManageRate: number
    /** `POST /webhook/:id/test` calls, and apart `POST /events/test` calls, per account per minute, per process. */
    webhookTestRate: number
  }
}

export const webhookSettings = [
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
] satisfies Setting[]

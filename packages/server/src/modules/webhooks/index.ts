// Webhooks: registrations and the delivery log's API. Event names and payloads are in contract/,
// the outbox in events/, the delivery engine in delivery/.

export { testSample } from './deliveries.ts'
export { AccountRateLimit } from './rate-limit.ts'
export { webhookRoutes } from './routes.ts'
export { MAX_WEBHOOKS_PER_ACCOUNT } from './service.ts'
export { webhookSettings } from './settings.ts'

// OpenAPI 3.1 `webhooks`: one entry per event, describing the POST a receiver gets. Pure data built
// from the envelope schemas. Inline copies drop `$id` so that the document never declares one ID
// twice (components already hold them).

import { WEBHOOK_PAYLOADS } from './envelope.ts'
import { EVENT_NAMES } from './events.ts'

function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds)
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) if (key !== '$id') out[key] = withoutIds(inner)
  return out
}

export interface OpenApiWebhook {
  post: {
    operationId: string
    summary: string
    description: string
    requestBody: { required: true; content: { 'application/json': { schema: Record<string, unknown> } } }
    responses: Record<string, { description: string }>
  }
}

/** `file_uploaded` → `onFileUploaded`: what a generated receiver names its handler. */
function webhookOperationId(event: string): string {
  return `on${event.replace(/(^|_)([a-z])/g, (_match, _sep, letter: string) => letter.toUpperCase())}`
}

export function openApiWebhooks(): Record<string, OpenApiWebhook> {
  const entries = EVENT_NAMES.map((event): [string, OpenApiWebhook] => [
    event,
    {
      post: {
        operationId: webhookOperationId(event),
        summary: `The ${event} event`,
        description:
          'Sent with `x-service-token` (bcrypt of the secretToken) and Standard Webhooks signature headers. ' +
          'Answer 200 with `Content-Type: application/json` and `{"success": true}`; anything else is retried.',
        requestBody: {
          required: true as const,
          content: {
            'application/json': { schema: withoutIds(WEBHOOK_PAYLOADS[event]) as Record<string, unknown> },
          },
        },
        responses: { 200: { description: 'Received: `{"success": true}` as application/json' } },
      },
    },
  ])
  return Object.fromEntries(entries)
}

import { Type } from 'typebox'
import {
  ATTEMPT_ERROR_CODES,
  CursorParam,
  EVENT_NAMES,
  ID_PATTERN,
  LimitParam,
  NextCursor,
} from '../../contract/index.ts'

const EventNameSchema = Type.Union(
  EVENT_NAMES.map((name) => Type.Literal(name)),
  { description: 'Event listened to' },
)

/** What every webhook answer shows; never the secret. */
const WebhookAttributes = Type.Object({
  _id: Type.String({ pattern: ID_PATTERN }),
  event: EventNameSchema,
  url: Type.String({ description: 'Absolute http(s) URL receiving the POST requests' }),
  owner: Type.String({ description: 'e-mail of the owner' }),
  created: Type.String({ format: 'date-time' }),
  disabled: Type.Boolean(),
  disabledReason: Type.Union(
    [Type.Literal('owner'), Type.Literal('gone'), Type.Literal('failing'), Type.Null()],
    {
      description:
        'why it is disabled: `owner` (PATCH), `gone` (the receiver answered 410), `failing` (failing ' +
        'longer than TESSERA_WEBHOOK_DISABLE_AFTER); null while enabled',
    },
  ),
  __v: Type.Integer({ description: 'revision, incremented on every update' }),
})

export const WebhookResource = Type.Object(
  {
    type: Type.Literal('webhook'),
    id: Type.String({ pattern: ID_PATTERN }),
    attributes: WebhookAttributes,
  },
  { $id: 'Webhook', title: 'Webhook' },
)

const WebhookRef = Type.Ref('Webhook')

export const WebhookAnswer = Type.Object({ success: Type.Literal(true), data: WebhookRef })
export const WebhookList = Type.Object({ success: Type.Literal(true), data: Type.Array(WebhookRef) })
export const Ok = Type.Object({ success: Type.Literal(true) })

export const CreateWebhookBody = Type.Object(
  {
    event: EventNameSchema,
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    secretToken: Type.Optional(
      Type.String({
        maxLength: 256,
        description:
          '16 to 256 characters, not guessable in its first 72 bytes and without invisible characters ' +
          '(WEAK_SECRET); kept secret, never returned. Omitted: the server generates one (whsec_ + base64 ' +
          'of 32 random bytes) and answers it once, in this call’s `secretToken`',
      }),
    ),
  },
  { additionalProperties: false },
)

export const CreatedWebhookAnswer = Type.Object({
  success: Type.Literal(true),
  data: WebhookRef,
  secretToken: Type.Optional(
    Type.String({
      description:
        'Only when the request had no secretToken: the secret the server generated, in the Standard ' +
        'Webhooks form (whsec_ + base64 of 32 random bytes). Shown this once: no later call returns it',
    }),
  ),
})

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    secretToken: Type.Optional(
      Type.String({
        maxLength: 256,
        description: 'New secret, validated like a new one; the previous one keeps signing too for 24 h',
      }),
    ),
    disabled: Type.Optional(Type.Boolean()),
    __v: Type.Optional(Type.Integer({ description: 'If given, must match the current revision (else 409)' })),
  },
  { additionalProperties: false, minProperties: 1 },
)

export const WebhookParams = Type.Object({ id: Type.String({ maxLength: 64 }) })

// ---- delivery log and operations ---------------------------------------------------------------

const DELIVERY_STATUSES = ['pending', 'delivering', 'succeeded', 'failed', 'paused'] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

const DeliveryStatusSchema = Type.Union(
  DELIVERY_STATUSES.map((status) => Type.Literal(status)),
  {
    description:
      'pending: waiting for its next attempt; delivering: an attempt is in flight; succeeded; ' +
      'failed: every attempt of the schedule failed (kept for manual retry); paused: the webhook is ' +
      'disabled (sent when it is enabled again or recovered)',
  },
)

const AttemptErrorCodeSchema = Type.Union(
  [...ATTEMPT_ERROR_CODES.map((code) => Type.Literal(code)), Type.Null()],
  {
    description:
      'null on success. E_TIMEOUT: no complete answer in time; E_CONNECT: refused, reset or TLS ' +
      'failure; E_DNS: host not resolvable; E_SSRF: target address refused; E_STATUS: status other ' +
      'than 200; E_CONTENT_TYPE: not application/json; E_BODY: body not JSON with "success": true',
  },
)

const Timestamp = Type.String({ format: 'date-time' })

export const DeliverySummary = Type.Object(
  {
    _id: Type.String({ pattern: ID_PATTERN }),
    uuid: Type.String({ description: 'The envelope uuid and webhook-id header: the same on every attempt' }),
    webhook: Type.String({ pattern: ID_PATTERN }),
    event: EventNameSchema,
    file: Type.String({ description: 'ID of the file the event concerns' }),
    status: DeliveryStatusSchema,
    test: Type.Boolean({ description: 'Sent by POST /webhook/:id/test' }),
    attemptCount: Type.Integer({ minimum: 0 }),
    nextAttemptAt: Type.Union([Timestamp, Type.Null()], { description: 'When a pending delivery is due' }),
    lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
    lastErrorCode: AttemptErrorCodeSchema,
    created: Timestamp,
    updated: Timestamp,
    completed: Type.Union([Timestamp, Type.Null()], { description: 'When it succeeded or failed for good' }),
  },
  { $id: 'WebhookDelivery', title: 'WebhookDelivery' },
)

const DeliveryAttempt = Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  startedAt: Timestamp,
  finishedAt: Timestamp,
  durationMs: Type.Integer({ minimum: 0 }),
  statusCode: Type.Union([Type.Integer(), Type.Null()], { description: 'null when no answer arrived' }),
  errorCode: AttemptErrorCodeSchema,
  errorMessage: Type.Union([Type.String(), Type.Null()]),
  responseExcerpt: Type.String({ description: 'The first 4 KiB of the response body' }),
})

export const DeliveryDetail = Type.Object(
  {
    ...DeliverySummary.properties,
    payload: Type.Object(
      {
        file: Type.String(),
        event: EventNameSchema,
        data: Type.Unknown(),
        owner: Type.String(),
        runTimestamp: Type.Integer(),
        uuid: Type.String(),
      },
      { description: 'The body sent on every attempt' },
    ),
    attempts: Type.Array(DeliveryAttempt, { description: 'Every attempt, oldest first' }),
  },
  { $id: 'WebhookDeliveryDetail', title: 'WebhookDeliveryDetail' },
)

const DeliveryRef = Type.Ref('WebhookDelivery')

export const DeliveryListQuery = Type.Object(
  {
    status: Type.Optional(DeliveryStatusSchema),
    cursor: CursorParam(),
    // The range is checked by listDeliveries.
    limit: LimitParam('Deliveries per page, 1 to 200 (default 50)', '^[0-9]{1,9}$'),
  },
  { additionalProperties: false },
)

export const DeliveryList = Type.Object({
  success: Type.Literal(true),
  deliveries: Type.Array(DeliveryRef, { description: 'Newest first' }),
  nextCursor: NextCursor('null on the last page'),
})

export const DeliveryAnswer = Type.Object({ success: Type.Literal(true), delivery: DeliveryRef })
export const DeliveryDetailAnswer = Type.Object({
  success: Type.Literal(true),
  delivery: Type.Ref('WebhookDeliveryDetail'),
})

export const DeliveryParams = Type.Object({
  id: Type.String({ maxLength: 64 }),
  deliveryId: Type.String({ maxLength: 64 }),
})

export const RecoverBody = Type.Object(
  {
    since: Type.Union(
      [
        Type.String({ minLength: 1, maxLength: 64, description: 'ISO 8601 date-time' }),
        Type.Integer({ minimum: 0, description: 'Unix time in milliseconds' }),
      ],
      { description: 'Deliveries of events from this moment on are re-queued' },
    ),
  },
  { additionalProperties: false },
)

export const RecoverAnswer = Type.Object({
  success: Type.Literal(true),
  recovered: Type.Integer({ minimum: 0, description: 'Deliveries re-queued' }),
  reenabled: Type.Boolean({ description: 'The webhook was disabled and has been enabled again' }),
})

import { Type } from 'typebox'
import { ID_PATTERN } from '../../platform/ids.ts'
import { EVENT_NAMES } from './events.ts'

export const EventNameSchema = Type.Union(
  EVENT_NAMES.map((name) => Type.Literal(name)),
  { description: 'Event listened to' },
)

/** What every webhook answer shows; never the secret. */
export const WebhookAttributes = Type.Object({
  _id: Type.String({ pattern: ID_PATTERN }),
  event: EventNameSchema,
  url: Type.String({ description: 'Absolute http(s) URL receiving the POST requests' }),
  owner: Type.String({ description: 'e-mail of the owner' }),
  created: Type.String({ format: 'date-time' }),
  disabled: Type.Boolean(),
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
    secretToken: Type.String({
      maxLength: 1024,
      description: 'At least 16 characters, not trivially guessable; kept secret, never returned',
    }),
  },
  { additionalProperties: false },
)

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    secretToken: Type.Optional(
      Type.String({
        maxLength: 1024,
        description: 'New secret; the previous one keeps signing too for 24 h',
      }),
    ),
    disabled: Type.Optional(Type.Boolean()),
    __v: Type.Optional(Type.Integer({ description: 'If given, must match the current revision (else 409)' })),
  },
  { additionalProperties: false, minProperties: 1 },
)

export const WebhookParams = Type.Object({ id: Type.String({ maxLength: 64 }) })

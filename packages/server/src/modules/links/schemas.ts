// Request and answer shapes of the links routes (routes.ts); docs/api.md, "Links".
import { Type } from 'typebox'

export const LinkFileParams = Type.Object({ id: Type.String({ maxLength: 64 }) })

export const CreateLinkBody = Type.Object(
  {
    expiresAt: Type.Optional(
      Type.Union([Type.String({ format: 'date-time', maxLength: 40 }), Type.Null()], {
        description: 'when the link stops opening (future, at most a year ahead); null or absent: never',
      }),
    ),
    password: Type.Optional(
      Type.Union([Type.String({ minLength: 4, maxLength: 256 }), Type.Null()], {
        description: 'asked of everyone who opens the link (4–256 characters); null or absent: none',
      }),
    ),
  },
  { additionalProperties: false },
)

const LinkSettings = Type.Object(
  {
    id: Type.String({ description: 'the link’s id (not secret): the owner’s `shareToken` of the file' }),
    fileId: Type.String(),
    created: Type.String({ format: 'date-time' }),
    expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    hasPassword: Type.Boolean(),
    expired: Type.Boolean({ description: 'past `expiresAt`: it no longer opens (revoke or rotate it)' }),
  },
  { $id: 'LinkSettings', title: 'LinkSettings' },
)

export { LinkSettings }

export const LinkAnswer = Type.Object({ success: Type.Literal(true), link: Type.Ref('LinkSettings') })

export const LinkWithTokenAnswer = Type.Object({
  success: Type.Literal(true),
  link: Type.Ref('LinkSettings'),
  token: Type.Union([Type.String(), Type.Null()], {
    description:
      'the link token, answered only here (the server keeps its hash): the link is ' +
      '`<console origin>/#/link/<token>`. null in a replay of an Idempotency-Key: rotate for a new one',
  }),
})

export const OpenLinkBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 128 }),
    password: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { additionalProperties: false },
)

export const LinkSessionAnswer = Type.Object({
  success: Type.Literal(true),
  linkSession: Type.String({ description: 'RS256 JWT: send it as `x-link-session` on read calls' }),
  fileId: Type.String(),
  expiresAt: Type.String({
    format: 'date-time',
    description: 'when this link session ends (renew before: GET /links/session)',
  }),
  linkExpiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'when the link itself stops opening; null: never',
  }),
  allowLivePublicMeetings: Type.Boolean(),
})

export const LinkRevoked = Type.Object({ success: Type.Literal(true) })

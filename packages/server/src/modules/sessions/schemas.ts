import { Type } from 'typebox'

export const SessionResult = Type.Object({
  success: Type.Literal(true),
  jwt: Type.String({ description: 'The session token; also set as the cookie X-Service-Session.' }),
})

export const KeepAliveResult = Type.Object({
  success: Type.Literal(true),
  expiresAt: Type.String({
    format: 'date-time',
    description: 'When the session expires without another keep-alive.',
  }),
})

export const DeleteResult = Type.Object({
  success: Type.Literal(true),
  effectiveAt: Type.String({ format: 'date-time', description: 'When the deletion takes effect.' }),
})

import { Type } from 'typebox'

export const SessionResult = Type.Object({
  success: Type.Literal(true),
  jwt: Type.String({ description: 'The session token; also set as the cookie X-Service-Session.' }),
  superseded: Type.Boolean({
    description:
      'true when this took over a valid session of the same account (another tab, device or script), ' +
      'which is signed out now (401 SESSION_SUPERSEDED)',
  }),
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

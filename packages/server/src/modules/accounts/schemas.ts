import { Type } from 'typebox'

export const LoginBody = Type.Object(
  {
    // No NUL: PostgreSQL text cannot hold it (the failed-login limit looks the username up).
    username: Type.String({ minLength: 1, maxLength: 256, pattern: '^[^\\u0000]*$' }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
)

export const LoginResult = Type.Object({
  success: Type.Literal(true),
  email: Type.String({ description: 'e-mail of the account' }),
  username: Type.String(),
  cookies: Type.String({
    description: 'jsonwebtoken=<AUTH_TOKEN>; the auth token is the part after the first "="',
    pattern: '^jsonwebtoken=',
  }),
})

import { Type } from 'typebox'

export const LoginBody = Type.Object(
  {
    // No NUL: PostgreSQL text cannot hold it (the failed-login limit looks the username up).
    username: Type.String({
      minLength: 1,
      maxLength: 256,
      pattern: '^[^\\u0000]*$',
      description: 'the username, or the account’s e-mail (either in any case)',
    }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    cookie: Type.Optional(
      Type.Boolean({
        description:
          'Browser sign-in: true sets the auth token as the HttpOnly cookie `jsonwebtoken` ' +
          '(SameSite=Strict) and leaves it out of the answer. Needs CSRF proof like a cookie write.',
      }),
    ),
  },
  { additionalProperties: false },
)

export const LoginResult = Type.Object({
  success: Type.Literal(true),
  email: Type.String({ description: 'e-mail of the account' }),
  username: Type.String(),
  cookies: Type.Optional(
    Type.String({
      description:
        'jsonwebtoken=<AUTH_TOKEN>; the auth token is the part after the first "=". Absent with ' +
        '`cookie: true` (the token is then only in the HttpOnly cookie, out of reach of scripts).',
      pattern: '^jsonwebtoken=',
    }),
  ),
})

export const PasswordBody = Type.Object(
  {
    currentPassword: Type.String({ minLength: 1, maxLength: 1024 }),
    newPassword: Type.String({ minLength: 1, maxLength: 1024, description: 'at least 10 characters' }),
  },
  { additionalProperties: false },
)

export const PasswordResult = Type.Object({
  success: Type.Literal(true),
  cookies: Type.Optional(
    Type.String({
      description:
        'jsonwebtoken=<AUTH_TOKEN>: a fresh auth token (every token issued before the change is now ' +
        'refused with 401 TOKEN_REVOKED). Absent when the auth token came as a cookie: the cookie ' +
        '`jsonwebtoken` is then set to the fresh token instead.',
      pattern: '^jsonwebtoken=',
    }),
  ),
})

/** Who the presented tokens belong to (GET /account/me). */
export const CurrentAccount = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    username: Type.String(),
    isAdmin: Type.Boolean(),
  },
  { $id: 'CurrentAccount', title: 'CurrentAccount' },
)

export const CurrentAccountAnswer = Type.Object({
  success: Type.Literal(true),
  account: Type.Ref('CurrentAccount'),
})

export const AccountView = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    username: Type.String(),
    isAdmin: Type.Boolean(),
    disabled: Type.Boolean(),
    created: Type.String({ format: 'date-time' }),
  },
  { $id: 'Account', title: 'Account' },
)

import { Type } from 'typebox'
import { CursorParam, LimitParam, NextCursor } from '../../contract/index.ts'

const AccountRef = Type.Ref('Account')

export const AccountsQuery = Type.Object(
  {
    limit: LimitParam('1..1000, default 1000'),
    cursor: CursorParam(),
  },
  { additionalProperties: false },
)

export const AccountsList = Type.Object({
  success: Type.Literal(true),
  accounts: Type.Array(AccountRef),
  nextCursor: NextCursor(),
})

export const NewAccountBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254 }),
    username: Type.String({ minLength: 1, maxLength: 64 }),
    password: Type.String({ minLength: 1, maxLength: 1024, description: 'at least 10 characters' }),
    admin: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
)

export const AccountParams = Type.Object({ id: Type.String({ maxLength: 64 }) })

export const AccountPatch = Type.Object(
  {
    disabled: Type.Boolean({
      description: 'true disables the account and ends its session at once (its license is free)',
    }),
  },
  { additionalProperties: false },
)

export const AccountAnswer = Type.Object({ success: Type.Literal(true), account: AccountRef })

export const Licenses = Type.Object({
  success: Type.Literal(true),
  total: Type.Integer({ description: 'TESSERA_LICENSES' }),
  inUse: Type.Integer({ description: 'valid sessions, each holding one license' }),
  sessions: Type.Array(
    Type.Object({
      username: Type.String(),
      created: Type.String({ format: 'date-time' }),
      validUntil: Type.String({
        format: 'date-time',
        description: 'when it ends without keep-alive (or its scheduled deletion)',
      }),
    }),
  ),
})

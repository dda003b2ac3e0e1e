// The sharing routes' request shapes (sharing/routes.ts).
import { Type } from 'typebox'
import { ShareRole } from '../schemas.ts'

export const ShareBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254 }),
    role: ShareRole,
  },
  { additionalProperties: false },
)

export const ShareParams = Type.Object({
  id: Type.String({ maxLength: 64 }),
  email: Type.String({ minLength: 1, maxLength: 254 }),
})

// The body of PUT /file/:id/live-meetings (its answer is the file: FileAnswer).
import { Type } from 'typebox'

export const LiveMeetingsBody = Type.Object(
  {
    allow: Type.Boolean({
      description: 'true: visitors with the file’s link may join its live sessions; false: they may not',
    }),
  },
  { additionalProperties: false },
)

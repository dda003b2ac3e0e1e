// Request and answer schemas of the discussion routes (the reply record is contract/discussion.ts).
import { Type } from 'typebox'
import { CursorParam, LimitParam, NextCursor, REPLY_MAX_CHARS } from '../../contract/index.ts'
import { ID_PATTERN } from '../../platform/ids.ts'

const Id = Type.String({ pattern: ID_PATTERN })

const ReplyText = Type.String({
  minLength: 1,
  maxLength: REPLY_MAX_CHARS,
  // Not blank: at least one character that is not white space.
  pattern: '\\S',
  description: `the reply, 1–${REPLY_MAX_CHARS} characters, not only white space`,
})

export const CreateReplyBody = Type.Object(
  { annotation: Id, text: ReplyText },
  { additionalProperties: false },
)

export const UpdateReplyBody = Type.Object({ _id: Id, text: ReplyText }, { additionalProperties: false })

/** A DELETE's id, as JSON body {"_id"} or as query ?_id=. */
export const ReplyIdInput = Type.Object({ _id: Type.Optional(Id) }, { additionalProperties: false })

export const ListRepliesQuery = Type.Object(
  {
    annotation: Id,
    limit: LimitParam('replies per page, from 1; default and maximum TESSERA_REPLY_PAGE_MAX_ITEMS (200)'),
    cursor: CursorParam(),
  },
  { additionalProperties: false },
)

export const MarkReadBody = Type.Object(
  {
    annotation: Id,
    upTo: Type.Optional(
      Type.Integer({ minimum: 0, description: 'seq of the last reply read; default: the newest' }),
    ),
  },
  { additionalProperties: false },
)

export const FileQuery = Type.Object({ file: Id }, { additionalProperties: false })

const DiscussionState = Type.Object(
  {
    annotation: Id,
    replies: Type.Integer({ minimum: 0 }),
    lastReplyAt: Type.Union([Type.Integer(), Type.Null()], { description: 'ms of the newest reply' }),
    unread: Type.Integer({ minimum: 0, description: 'replies by others past your read marker' }),
    readUpTo: Type.Integer({ minimum: 0, description: 'seq of the last reply you marked read; 0: none' }),
  },
  { additionalProperties: false, $id: 'DiscussionState', title: 'DiscussionState' },
)

const ReplyRef = Type.Ref('AnnotationReply')

export const ReplyAnswer = Type.Object({ success: Type.Literal(true), reply: ReplyRef })
export const RepliesAnswer = Type.Object({
  success: Type.Literal(true),
  replies: Type.Array(ReplyRef),
  nextCursor: NextCursor(),
})
export const DiscussionAnswer = Type.Object({
  success: Type.Literal(true),
  discussion: Type.Ref('DiscussionState'),
})
export const DiscussionsAnswer = Type.Object({
  success: Type.Literal(true),
  discussions: Type.Array(Type.Ref('DiscussionState')),
})
export { DiscussionState }

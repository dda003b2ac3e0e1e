// The discussion of an annotation (beyond the spec, which names readDiscussion/writeDiscussion but no
// API): its replies, the summary of a thread, and the `data` of annotation_discussion_updated.
import { type Static, Type } from 'typebox'
import { Email, Millis, RecordId } from './primitives.ts'

/** The longest reply, in characters (UTF-16 code units, as JSON Schema's maxLength counts). */
export const REPLY_MAX_CHARS = 4000

/** A reply in an annotation's discussion. */
export const AnnotationReply = Type.Object(
  {
    _id: RecordId,
    annotation: RecordId,
    file: RecordId,
    author: Email,
    text: Type.String({ maxLength: REPLY_MAX_CHARS }),
    /** Position in its thread: 1, 2, …; never reused after a delete. */
    seq: Type.Integer({ minimum: 1, description: 'position in the thread (1, 2, …), never reused' }),
    date: Millis,
    edited: Type.Union([Millis, Type.Null()], {
      description: 'when its author last edited it; null if never',
    }),
  },
  { additionalProperties: false, $id: 'AnnotationReply', title: 'AnnotationReply' },
)

/** What a thread holds, as events and the discussion summary show it. */
const DiscussionCounts = Type.Object(
  {
    replies: Type.Integer({ minimum: 0, description: 'replies in the thread now' }),
    lastReplyAt: Type.Union([Millis, Type.Null()], { description: 'date of the newest reply; null if none' }),
  },
  { additionalProperties: false },
)

/** `data` of annotation_discussion_updated: a reply was posted, edited or deleted. */
export const AnnotationDiscussionUpdatedData = Type.Object(
  {
    annotation: RecordId,
    change: Type.Union([
      Type.Literal('reply_created'),
      Type.Literal('reply_updated'),
      Type.Literal('reply_removed'),
    ]),
    reply: AnnotationReply,
    discussion: DiscussionCounts,
  },
  { additionalProperties: false },
)

export type AnnotationReplyShape = Static<typeof AnnotationReply>

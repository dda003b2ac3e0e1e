// The routes of annotation discussions: replies (list, post, edit, delete), marking a thread read,
// and the per-file summary of threads with the caller's unread counts.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { AnnotationReply, type AnnotationReplyShape } from '../../contract/index.ts'
import type { AppContext } from '../../platform/context.ts'
import { AppError } from '../../platform/errors.ts'
import { answerInCommit } from '../../platform/idempotent-routes.ts'
import { discussionsOfFile, listReplies, markRead } from './reads.ts'
import {
  CreateReplyBody,
  DiscussionAnswer,
  DiscussionState,
  DiscussionsAnswer,
  FileQuery,
  ListRepliesQuery,
  MarkReadBody,
  RepliesAnswer,
  ReplyAnswer,
  ReplyIdInput,
  UpdateReplyBody,
} from './schemas.ts'
import { createReply, deleteReply, updateReply } from './service.ts'

const tags = ['discussions']

const ACCESS_NOTE =
  'Who may: anyone with a role on the file who may see the annotation (its readPermissions; else 404) ' +
  'reads the discussion when permissions.readDiscussion lets them, and replies when ' +
  'permissions.writeDiscussion does too — viewers included (replying is commenting). Lists hold e-mails ' +
  'or "*"; an empty list restricts nothing; the annotation\'s author and the file\'s owner always may. ' +
  'Otherwise 403. A link session (x-link-session) reads the threads of annotations whose readPermissions ' +
  'and readDiscussion are both open to everyone (empty or "*"), and never writes.'

const answerReply = (reply: AnnotationReplyShape) => ({ success: true as const, reply })

/** The id of a DELETE, from the JSON body or the query (both: they must agree). */
function idOfDelete(body: { _id?: string } | undefined | null, query: { _id?: string }): string {
  if (body?._id && query._id && body._id !== query._id) {
    throw new AppError('VALIDATION_FAILED', '_id in the body and in the query differ.')
  }
  const id = body?._id ?? query._id
  if (!id)
    throw new AppError('VALIDATION_FAILED', 'Give the _id to delete, as JSON body {"_id"} or as ?_id=.')
  return id
}

export async function discussionRoutes(fastify: FastifyInstance, ctx: AppContext): Promise<void> {
  fastify.addSchema(AnnotationReply)
  fastify.addSchema(DiscussionState)
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

  app.get(
    '/annotation/reply/',
    {
      config: { link: 'read' },
      schema: {
        tags,
        operationId: 'listReplies',
        summary: "A page of an annotation's discussion, oldest first",
        description:
          'At most `limit` replies per page (default and maximum TESSERA_REPLY_PAGE_MAX_ITEMS, 200); pass ' +
          `\`nextCursor\` as \`cursor\` for the next page (null on the last). ${ACCESS_NOTE}`,
        querystring: ListRepliesQuery,
        response: { 200: RepliesAnswer },
      },
    },
    async (request) => {
      const { annotation, limit, cursor } = request.query
      const paging = { limit: limit === undefined ? undefined : Number(limit), cursor }
      return { success: true as const, ...(await listReplies(ctx, request.auth, annotation, paging)) }
    },
  )

  app.post(
    '/annotation/reply/create/',
    {
      config: { idempotent: 'body' },
      schema: {
        tags,
        operationId: 'createReply',
        summary: "Reply in an annotation's discussion",
        description:
          `At most TESSERA_ANNOTATION_MAX_REPLIES (1000) replies per annotation: 409 REPLY_LIMIT_REACHED. ` +
          `Emits annotation_discussion_updated (change reply_created). ${ACCESS_NOTE}`,
        body: CreateReplyBody,
        response: { 200: ReplyAnswer },
      },
    },
    async (request, reply) => {
      const inCommit = answerInCommit(request, reply, answerReply)
      const { annotation, text } = request.body
      return answerReply(await createReply(ctx, request.auth, annotation, text, inCommit))
    },
  )

  changeRoutes(fastify, ctx)
  readRoutes(fastify, ctx)
}

/** Editing and deleting a reply. */
function changeRoutes(fastify: FastifyInstance, ctx: AppContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.post(
    '/annotation/reply/update/',
    {
      schema: {
        tags,
        operationId: 'updateReply',
        summary: 'Edit a reply (its author only)',
        description:
          'Sets `edited`. The same text again changes nothing (no event). Emits annotation_discussion_updated ' +
          `(change reply_updated). Only the reply's author, while they may still reply. ${ACCESS_NOTE}`,
        body: UpdateReplyBody,
        response: { 200: ReplyAnswer },
      },
    },
    async (request) => answerReply(await updateReply(ctx, request.auth, request.body._id, request.body.text)),
  )

  app.delete(
    '/annotation/reply/delete/',
    {
      // A DELETE may come without a body (id in the query); validation then sees {}.
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {}
      },
      schema: {
        tags,
        operationId: 'deleteReply',
        summary: 'Delete a reply (its author, or the file owner as moderator)',
        description:
          'The id as JSON body {"_id"} or as query ?_id=. Answers the removed reply. Emits ' +
          `annotation_discussion_updated (change reply_removed). ${ACCESS_NOTE}`,
        body: ReplyIdInput,
        querystring: ReplyIdInput,
        response: { 200: ReplyAnswer },
      },
    },
    async (request) => {
      const id = idOfDelete(request.body, request.query)
      return answerReply(await deleteReply(ctx, request.auth, id))
    },
  )
}

/** The read marker and the per-file summary. */
function readRoutes(fastify: FastifyInstance, ctx: AppContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.post(
    '/annotation/reply/read/',
    {
      schema: {
        tags,
        operationId: 'markRepliesRead',
        summary: "Mark an annotation's discussion read",
        description:
          'Moves your read marker to reply `upTo` (its seq; default the newest); it never moves back. ' +
          `Answers the thread as you now see it. Emits nothing. ${ACCESS_NOTE}`,
        body: MarkReadBody,
        response: { 200: DiscussionAnswer },
      },
    },
    async (request) => {
      const { annotation, upTo } = request.body
      return { success: true as const, discussion: await markRead(ctx, request.auth, annotation, upTo) }
    },
  )

  app.get(
    '/annotation/discussion/',
    {
      config: { link: 'read' },
      schema: {
        tags,
        operationId: 'listDiscussions',
        summary: "The discussions of a file's annotations, with your unread counts",
        description:
          'One entry per annotation whose discussion holds a reply and that you may read, oldest annotation ' +
          `first (not paged: at most TESSERA_FILE_MAX_ANNOTATIONS entries). ${ACCESS_NOTE}`,
        querystring: FileQuery,
        response: { 200: DiscussionsAnswer },
      },
    },
    async (request) => ({
      success: true as const,
      discussions: await discussionsOfFile(ctx, request.auth, request.query.file),
    }),
  )
}

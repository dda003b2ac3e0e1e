// PUT /file/:id/live-meetings: the owner lets link guests join the file's live sessions, or not.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../../platform/context.ts'
import { FileAnswer, FileParams } from '../schemas.ts'
import { LiveMeetingsBody } from './schemas.ts'
import { setLiveMeetings } from './service.ts'

export function liveMeetingsRoute(fastify: FastifyInstance, ctx: AppContext): void {
  fastify.withTypeProvider<TypeBoxTypeProvider>().put(
    '/file/:id/live-meetings',
    {
      schema: {
        tags: ['files'],
        operationId: 'setLiveMeetings',
        summary: 'Let link visitors join the file’s live sessions, or not',
        description:
          'Owner only (403 for editors and viewers, 404 for anyone else; a link session may not call it). ' +
          'Sets the record’s `allowLivePublicMeetings` (false for a new file); `__v` and `updated` move ' +
          'when it changes, setting it again changes nothing. Turning it off closes the live connections ' +
          'of the file’s guests on every server process within a second (`closed LIVE_GUESTS_NOT_ALLOWED`); ' +
          'accounts stay. No event.',
        params: FileParams,
        body: LiveMeetingsBody,
        response: { 200: FileAnswer },
      },
    },
    async (request) => ({
      success: true as const,
      file: await setLiveMeetings(ctx, request.auth.accountId, request.params.id, request.body.allow),
    }),
  )
}

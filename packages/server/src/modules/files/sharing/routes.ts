// Sharing routes: the owner gives an account a role on a file, or takes it away.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../../platform/context.ts'
import { answerInCommit } from '../../../platform/idempotent-routes.ts'
import { FileAnswer, FileParams } from '../schemas.ts'
import type { FileViewShape } from '../service.ts'
import { ShareBody, ShareParams } from './schemas.ts'
import { shareFile, unshareFile } from './service.ts'

export function shareRoutes(fastify: FastifyInstance, ctx: AppContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['files']

  app.post(
    '/file/:id/share',
    {
      config: { idempotent: 'body' },
      schema: {
        tags,
        operationId: 'shareFile',
        summary: 'Share a file with an account (or change its role)',
        description:
          'Owner only. `role` viewer (read, download) or editor (also attributes, annotations, ' +
          'configurations). Unknown e-mail: 404. The record lists the shares in `roles` as ' +
          '`[{email, role}]`. A file is shared with at most TESSERA_FILE_MAX_SHARES (1000) accounts: ' +
          'one more is 409 SHARE_LIMIT_REACHED (changing a role always passes).',
        params: FileParams,
        body: ShareBody,
        response: { 200: FileAnswer },
      },
    },
    async (request, reply) => {
      const answer = (file: FileViewShape) => ({ success: true as const, file })
      const inCommit = answerInCommit(request, reply, answer)
      return answer(await shareFile(ctx, request.auth.accountId, request.params.id, request.body, inCommit))
    },
  )

  app.delete(
    '/file/:id/share/:email',
    {
      schema: {
        tags,
        operationId: 'unshareFile',
        summary: 'Stop sharing a file with an account',
        description: 'Owner only. 404 when the e-mail is unknown or the file is not shared with it.',
        params: ShareParams,
        response: { 200: FileAnswer },
      },
    },
    async (request) => ({
      success: true as const,
      file: await unshareFile(ctx, request.auth.accountId, request.params.id, request.params.email),
    }),
  )
}

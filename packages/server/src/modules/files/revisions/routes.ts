// The revision history of a file: its revisions, and the original bytes of each (service.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../../platform/context.ts'
import { blobResponses, sendBlob } from '../../../platform/downloads.ts'
import { FileParams } from '../schemas.ts'
import { FileRevision, RevisionList, RevisionParams } from './schemas.ts'
import { listRevisions, revisionDownload } from './service.ts'

export function revisionRoutes(fastify: FastifyInstance, ctx: AppContext): void {
  fastify.addSchema(FileRevision)
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['files']

  app.get(
    '/file/:id/revisions',
    {
      schema: {
        tags,
        operationId: 'listFileRevisions',
        summary: 'The revisions of a file, newest first',
        description:
          'Owner, editors and viewers; 404 for anyone else. The current revision (`current: true`) and ' +
          'the earlier ones still kept: at most TESSERA_FILE_REVISIONS_KEPT, the oldest dropped first.',
        params: FileParams,
        response: { 200: RevisionList },
      },
    },
    async (request) => ({
      success: true as const,
      revisions: await listRevisions(ctx, request.auth.accountId, request.params.id),
    }),
  )

  app.get(
    '/file/:id/revisions/:v/download',
    {
      schema: {
        tags,
        operationId: 'downloadFileRevision',
        summary: 'The original bytes of one revision',
        description:
          'Owner, editors and viewers. As GET /file/{id}/download (ETag, If-None-Match, Range) for the ' +
          'revision whose `__v` is `v`, the current one included; 404 NOT_FOUND for a revision not kept.',
        params: RevisionParams,
        response: blobResponses('The revision’s original bytes', 'application/octet-stream', {
          ranges: true,
        }),
      },
    },
    async (request, reply) => {
      const { id, v } = request.params
      const download = await revisionDownload(ctx, request.auth.accountId, id, Number(v))
      return sendBlob(request, reply, ctx.blobs, download)
    },
  )
}

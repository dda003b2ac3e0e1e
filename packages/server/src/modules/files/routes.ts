import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../platform/context.ts'
import { DirectoryListing, DirectoryParams, FileRecord } from './schemas.ts'
import { listFiles } from './service.ts'

export async function fileRoutes(fastify: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.addSchema(FileRecord)
  const tags = ['files']

  app.get(
    '/file/dir/private/',
    {
      schema: {
        tags,
        summary: "List the caller's root directory",
        response: { 200: DirectoryListing },
      },
    },
    async (request) => ({ success: true as const, files: await listFiles(ctx, request.auth.accountId, '/') }),
  )

  app.get(
    '/file/dir/private/*',
    {
      schema: {
        tags,
        summary: 'List a sub-directory of the caller',
        params: DirectoryParams,
        response: { 200: DirectoryListing },
      },
    },
    async (request) => ({
      success: true as const,
      files: await listFiles(ctx, request.auth.accountId, request.params['*']),
    }),
  )
}

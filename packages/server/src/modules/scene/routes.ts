import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../platform/context.ts'
import { AttributesAnswer, AttributesQuery, WriteAttributesBody } from './schemas.ts'
import { readAttributes, writeAttributes } from './service.ts'

export async function sceneRoutes(fastify: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['scene']

  app.post(
    '/scene/attributes',
    {
      schema: {
        tags,
        summary: "Merge attributes into nodes of a file's scene tree",
        description:
          'Each attribute given is set; a null value removes that attribute; attributes not named stay. ' +
          'Once the file has a scene tree, every node ID must be one of its nodes (400 UNKNOWN_NODE). ' +
          'Needs the owner or editor role (viewer: 403; no access: 404). Emits attribute_updated with ' +
          'the nodeIdToAttributes as written. Answers the resulting attributes of the nodes written.',
        body: WriteAttributesBody,
        response: { 200: AttributesAnswer },
      },
    },
    async (request) => ({
      success: true as const,
      nodeIdToAttributes: await writeAttributes(
        ctx,
        request.auth,
        request.body.file,
        request.body.nodeIdToAttributes,
      ),
    }),
  )

  app.get(
    '/scene/attributes',
    {
      schema: {
        tags,
        summary: 'All scene attributes of a file',
        querystring: AttributesQuery,
        response: { 200: AttributesAnswer },
      },
    },
    async (request) => ({
      success: true as const,
      nodeIdToAttributes: await readAttributes(ctx, request.auth, request.query.file),
    }),
  )
}

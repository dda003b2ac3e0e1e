import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../platform/context.ts'
import { AttributesAnswer, AttributesPageAnswer, AttributesQuery, WriteAttributesBody } from './schemas.ts'
import { readAttributes, writeAttributes } from './service.ts'

export async function sceneRoutes(fastify: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['scene']

  app.post(
    '/scene/attributes',
    {
      schema: {
        tags,
        operationId: 'updateSceneAttributes',
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
      config: { link: 'read' },
      schema: {
        tags,
        operationId: 'getSceneAttributes',
        summary: 'Scene attributes of a file, a page of nodes at a time',
        description:
          'Nodes in node ID order, at most `limit` (default and maximum TESSERA_SCENE_PAGE_MAX_NODES, ' +
          '1000) per page, and a page ends at the first node past TESSERA_SCENE_PAGE_MAX_BYTES (2 MiB). ' +
          'Pass `nextCursor` as `cursor` for the next page; null on the last page. A call without ' +
          '`limit` and `cursor` whose file fits one page answers without `nextCursor`.',
        querystring: AttributesQuery,
        response: { 200: AttributesPageAnswer },
      },
    },
    async (request) => {
      const { file, limit, cursor } = request.query
      const paged = { limit: limit === undefined ? undefined : Number(limit), cursor }
      const page = await readAttributes(ctx, request.auth, file, paged)
      const paging = limit !== undefined || cursor !== undefined || page.nextCursor !== null
      return {
        success: true as const,
        nodeIdToAttributes: page.nodeIdToAttributes,
        ...(paging ? { nextCursor: page.nextCursor } : {}),
      }
    },
  )
}

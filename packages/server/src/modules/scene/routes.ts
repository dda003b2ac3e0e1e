import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../platform/context.ts'
import { AccountRateLimit } from '../webhooks/index.ts'
import { searchFiles } from './file-search.ts'
import { readProperties } from './properties.ts'
import {
  AttributesAnswer,
  AttributesPageAnswer,
  AttributesQuery,
  FileSearchAnswer,
  FileSearchBody,
  PropertiesAnswer,
  PropertiesQuery,
  SearchAnswer,
  SearchBody,
  WriteAttributesBody,
} from './schemas.ts'
import { searchNodes } from './search.ts'
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

  await propertyRoutes(fastify, ctx)
}

async function propertyRoutes(fastify: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['scene']

  app.get(
    '/scene/properties',
    {
      config: { link: 'read' },
      schema: {
        tags,
        operationId: 'getSceneProperties',
        summary: "The model's own properties of nodes of a file's scene tree",
        description:
          'What the model file says about each node (IFC property sets, quantities, materials, ' +
          'classification; glTF extras; mesh and material names), read at conversion; read-only. ' +
          'With `node` (repeatable, at most 100): those nodes, each answered (`{}` without properties; ' +
          '400 UNKNOWN_NODE for a node outside the tree). Without it: the nodes that have properties, ' +
          'in node ID order, at most `limit` per page and ending at the first node past ' +
          'TESSERA_SCENE_PAGE_MAX_BYTES. `units` names the unit of the values that have one.',
        querystring: PropertiesQuery,
        response: { 200: PropertiesAnswer },
      },
    },
    async (request) => {
      const { file, node, limit, cursor } = request.query
      const nodes = node === undefined ? undefined : typeof node === 'string' ? [node] : node
      const query = { nodes, limit: limit === undefined ? undefined : Number(limit), cursor }
      return { success: true as const, ...(await readProperties(ctx, request.auth, file, query)) }
    },
  )

  app.post(
    '/scene/search',
    {
      config: { link: 'read' },
      schema: {
        tags,
        operationId: 'searchScene',
        summary: "Find a file's nodes by their properties or names",
        description:
          'Every condition must hold. A property condition names its `group` and `name`; ' +
          '`{"node": "name", …}` tests the node\'s name. Text compares without regard to case and sees ' +
          'the first 256 characters of a value; `lt`/`lte`/`gt`/`gte` compare numbers (400 ' +
          'VALIDATION_FAILED for a text value), `exists` takes no value, `ne` holds for nodes that ' +
          'have the property with another value. Answers node IDs in node ID order, a page at a time.',
        body: SearchBody,
        response: { 200: SearchAnswer },
      },
    },
    async (request) => {
      const { file, ...query } = request.body
      return { success: true as const, ...(await searchNodes(ctx, request.auth, file, query)) }
    },
  )

  // Each page is up to TESSERA_SEARCH_PAGE_MAX_MS of database work: a budget per account bounds
  // what one account can ask of the database in a minute.
  const searchFilesLimit = new AccountRateLimit(
    ctx.config.searchFilesRate,
    'searches across files',
    'TESSERA_SEARCH_FILES_RATE',
    'search-files',
  )
  app.post(
    '/scene/search/files',
    {
      config: { link: 'read' },
      preHandler: searchFilesLimit.hook(),
      schema: {
        tags,
        operationId: 'searchFiles',
        summary: 'Find the files whose nodes match, across every file you may read',
        description:
          'The files you own and those shared with you (a link session: its one file) whose nodes ' +
          'match every condition (the conditions of `POST /scene/search`), each with how many nodes ' +
          'match, in file ID order. A page looks into at most TESSERA_SEARCH_PAGE_MAX_FILES (500) ' +
          'files and ends at the first file past TESSERA_SEARCH_PAGE_MAX_MS (1,000 ms) of work, so ' +
          'it may hold fewer files than `limit`, even none, with a `nextCursor`: the search is done ' +
          'when `nextCursor` is null. At most TESSERA_SEARCH_FILES_RATE (120) calls per account per ' +
          'minute: 429 TOO_MANY_REQUESTS with Retry-After.',
        body: FileSearchBody,
        response: { 200: FileSearchAnswer },
      },
    },
    async (request) => ({ success: true as const, ...(await searchFiles(ctx, request.auth, request.body)) }),
  )
}

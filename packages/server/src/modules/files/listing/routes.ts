// The listing routes: the specification's directory listings (root and sub-directory, same answer
// as ever, paged past 1,000 files), the console's folder view (`?path=`), and the files shared with
// the caller.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../../../platform/context.ts'
import { DirectoryParams } from '../schemas.ts'
import { answerSerializer, listingText } from '../view-text.ts'
import { Listing, PageQuery, SharedFileView, SharedListing } from './schemas.ts'
import {
  type DirectoryPage,
  LISTING_PAGE_MAX,
  listDirectoryPage,
  listFolders,
  listSharedWith,
} from './service.ts'
import type { ListingStore } from './store.ts'

/**
 * The specification's answer `{success, files}` when it fits one page and the client did not page;
 * otherwise `nextCursor` too (a client that does not page ignores it and sees the first page).
 */
function specAnswer(page: DirectoryPage, paging: boolean) {
  const { files, nextCursor } = page
  return { success: true as const, files, ...(paging || nextCursor !== null ? { nextCursor } : {}) }
}

const listingSerializer = answerSerializer(listingText)

/** `store`: the database's listing store (files/routes.ts chooses it once and stops it with the app). */
export function listingRoutes(fastify: FastifyInstance, ctx: AppContext, store: ListingStore): void {
  fastify.addSchema(SharedFileView)
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['files']

  app.get(
    '/file/dir/private/',
    {
      schema: {
        tags,
        operationId: 'listFiles',
        summary: "List the caller's root directory, or with `path` any directory and its sub-folders",
        description:
          "Without `path`: the specification's answer `{success, files}`. With `path` (e.g. `/a/b`): " +
          '`{success, files, folders, nextCursor}`, `folders` on the first page only. Files are in name ' +
          `order, at most \`limit\` (default ${LISTING_PAGE_MAX}) per page; \`nextCursor\` appears when a ` +
          'page follows or the client pages.',
        querystring: Type.Object({
          path: Type.Optional(Type.String({ maxLength: 1024, description: 'the directory, `/` = root' })),
          ...PageQuery,
        }),
        response: { 200: Listing },
      },
      // The Listing schema's answer, each kept view's text kept with it (view-text.ts).
      serializerCompiler: listingSerializer,
    },
    async (request) => {
      const { path, limit, cursor } = request.query
      const page = await listDirectoryPage(ctx, store, request.auth, path ?? '/', { limit, cursor })
      if (path === undefined) return specAnswer(page, limit !== undefined || cursor !== undefined)
      if (cursor !== undefined) return { success: true as const, ...page }
      const folders = await listFolders(ctx, store, request.auth.accountId, path)
      return { success: true as const, ...page, folders }
    },
  )

  app.get(
    '/file/dir/private/*',
    {
      schema: {
        // The specification's URL shape, kept for its clients. Hidden from OpenAPI: `{*}` is no path
        // parameter a generator can fill (it sends `%7B*%7D` and gets an empty root listing);
        // `listFiles` with `?path=` lists the same folder.
        hide: true,
        tags,
        operationId: 'listFilesInFolder',
        summary: 'List a sub-directory of the caller',
        description: `Paged like the root listing: at most \`limit\` (default ${LISTING_PAGE_MAX}) files per page.`,
        params: DirectoryParams,
        querystring: Type.Object(PageQuery),
        response: { 200: Listing },
      },
      // The Listing schema's answer, each kept view's text kept with it (view-text.ts).
      serializerCompiler: listingSerializer,
    },
    async (request) => {
      const { limit, cursor } = request.query
      const page = await listDirectoryPage(ctx, store, request.auth, request.params['*'], { limit, cursor })
      return specAnswer(page, limit !== undefined || cursor !== undefined)
    },
  )

  app.get(
    '/file/dir/shared/',
    {
      schema: {
        tags,
        operationId: 'listSharedFiles',
        summary: 'Files other accounts shared with the caller, each with the caller’s role',
        description: `In file ID order, at most \`limit\` (default ${LISTING_PAGE_MAX}) per page.`,
        querystring: Type.Object(PageQuery),
        response: { 200: SharedListing },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query
      return {
        success: true as const,
        ...(await listSharedWith(ctx, store, request.auth.accountId, { limit, cursor })),
      }
    },
  )
}

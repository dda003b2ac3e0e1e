// The listing routes: the specification's directory listings (root and sub-directory, same answer
// as ever, paged past 1,000 files), the console's folder view (`?path=`), and the files shared with
// the caller.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../../../platform/context.ts'
import { cursorParam } from '../../../platform/cursors.ts'
import { sendJsonText } from '../../../platform/http.ts'
import { DirectoryParams, FileView, ShareRole } from '../schemas.ts'
import {
  type DirectoryPage,
  type Folder as FolderEntry,
  LISTING_PAGE_MAX,
  listDirectoryPage,
  listFolders,
  listSharedWith,
} from './service.ts'

// Query strings are not coerced: the limit comes as digits, checked against the maximum in listing.ts.
const PageQuery = {
  limit: Type.Optional(
    Type.String({
      pattern: '^[1-9][0-9]{0,8}$',
      description: `files per page, from 1 (default and maximum ${LISTING_PAGE_MAX})`,
    }),
  ),
  cursor: cursorParam('a nextCursor from the previous page'),
}

const NextCursor = Type.Union([Type.String(), Type.Null()], {
  description: 'pass as `cursor` for the next page; null on the last page',
})

const Folder = Type.Object({
  name: Type.String(),
  path: Type.String({ description: 'the folder as a `path` to list' }),
  files: Type.Integer({ description: 'files in the folder and every folder below it' }),
})

const Listing = Type.Object({
  success: Type.Literal(true),
  files: Type.Array(Type.Ref('FileView')),
  folders: Type.Optional(
    Type.Array(Folder, {
      description: 'with `path` only, on the first page: the direct sub-folders, by name',
    }),
  ),
  nextCursor: Type.Optional(NextCursor),
})

const SharedFileView = Type.Object(
  { ...FileView.properties, role: ShareRole },
  { $id: 'SharedFileView', title: 'SharedFileView' },
)

const SharedListing = Type.Object({
  success: Type.Literal(true),
  files: Type.Array(Type.Ref('SharedFileView')),
  nextCursor: NextCursor,
})

/**
 * A listing's JSON text, the files spliced in as their stored texts (view-json.ts): the `Listing`
 * schema's shape, written here because the route's serializer would parse and rebuild every file.
 */
function listingJson(page: DirectoryPage, extra: { nextCursor?: boolean; folders?: FolderEntry[] }): string {
  let text = `{"success":true,"files":[${page.filesJson.join(',')}]`
  if (extra.nextCursor) text += `,"nextCursor":${JSON.stringify(page.nextCursor)}`
  if (extra.folders) text += `,"folders":${JSON.stringify(extra.folders)}`
  return `${text}}`
}

/**
 * The specification's answer `{success, files}` when it fits one page and the client did not page;
 * otherwise `nextCursor` too (a client that does not page ignores it and sees the first page).
 */
function sendSpecAnswer(reply: FastifyReply, page: DirectoryPage, paging: boolean): FastifyReply {
  return sendJsonText(reply, listingJson(page, { nextCursor: paging || page.nextCursor !== null }))
}

export function listingRoutes(fastify: FastifyInstance, ctx: AppContext): void {
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
    },
    async (request, reply) => {
      const { path, limit, cursor } = request.query
      const page = await listDirectoryPage(ctx, request.auth, path ?? '/', { limit, cursor })
      if (path === undefined) return sendSpecAnswer(reply, page, limit !== undefined || cursor !== undefined)
      if (cursor !== undefined) return sendJsonText(reply, listingJson(page, { nextCursor: true }))
      const folders = await listFolders(ctx, request.auth.accountId, path)
      return sendJsonText(reply, listingJson(page, { nextCursor: true, folders }))
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
    },
    async (request, reply) => {
      const { limit, cursor } = request.query
      const page = await listDirectoryPage(ctx, request.auth, request.params['*'], {
        limit,
        cursor,
      })
      return sendSpecAnswer(reply, page, limit !== undefined || cursor !== undefined)
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
        ...(await listSharedWith(ctx, request.auth.accountId, { limit, cursor })),
      }
    },
  )
}

// Favourites routes: star and unstar a file, list the caller's stars.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../../../platform/context.ts'
import { PageQuery } from '../listing/schemas.ts'
import { LISTING_PAGE_MAX } from '../listing/service.ts'
import { FileAnswer, FileParams } from '../schemas.ts'
import { FavouritesListing } from './schemas.ts'
import { listFavourites, starFile, unstarFile } from './service.ts'

const WHO =
  'Anyone who may read the file (owner, editor, viewer; anyone else 404). The record’s `favoritedBy` ' +
  'lists the e-mails of the accounts that starred it, sorted; every reader sees the same list. No event.'

export function favouriteRoutes(fastify: FastifyInstance, ctx: AppContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['files']

  app.put(
    '/file/:id/favourite',
    {
      schema: {
        tags,
        operationId: 'starFile',
        summary: 'Star a file (add it to the caller’s favourites)',
        description:
          `${WHO} Starring a starred file changes nothing. An account stars at most ` +
          'TESSERA_ACCOUNT_MAX_FAVOURITES (10000) files: one more is 409 FAVOURITE_LIMIT_REACHED.',
        params: FileParams,
        response: { 200: FileAnswer },
      },
    },
    async (request) => ({
      success: true as const,
      file: await starFile(ctx, request.auth.accountId, request.params.id),
    }),
  )

  app.delete(
    '/file/:id/favourite',
    {
      schema: {
        tags,
        operationId: 'unstarFile',
        summary: 'Unstar a file (remove it from the caller’s favourites)',
        description: `${WHO} Unstarring a file that is not starred changes nothing.`,
        params: FileParams,
        response: { 200: FileAnswer },
      },
    },
    async (request) => ({
      success: true as const,
      file: await unstarFile(ctx, request.auth.accountId, request.params.id),
    }),
  )

  app.get(
    '/file/dir/favourites/',
    {
      schema: {
        tags,
        operationId: 'listFavouriteFiles',
        summary: 'The files the caller starred, own and shared, each with the caller’s role',
        description:
          `Only the caller's stars, of files they may still read. In file ID order, at most \`limit\` ` +
          `(default ${LISTING_PAGE_MAX}) per page.`,
        querystring: Type.Object(PageQuery),
        response: { 200: FavouritesListing },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query
      return {
        success: true as const,
        ...(await listFavourites(ctx, request.auth.accountId, { limit, cursor })),
      }
    },
  )
}

// The favourites routes' shapes (favourites/routes.ts); the paging pieces are the contract's.
import { Type } from 'typebox'
import { NextCursor } from '../../../contract/index.ts'

/** A page of the caller's stars: each file as the caller sees it (with their `role`). */
export const FavouritesListing = Type.Object({
  success: Type.Literal(true),
  files: Type.Array(Type.Ref('FileView')),
  nextCursor: NextCursor(),
})

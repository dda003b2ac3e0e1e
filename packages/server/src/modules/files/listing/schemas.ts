// The listing routes' shapes (listing/routes.ts); the paging pieces are the contract's.
import { Type } from 'typebox'
import { CursorParam, LimitParam, NextCursor } from '../../../contract/index.ts'
import { FileView, ShareRole } from '../schemas.ts'
import { LISTING_PAGE_MAX } from './service.ts'

// Query strings are not coerced: the limit comes as digits, checked against the maximum in service.ts.
export const PageQuery = {
  limit: LimitParam(`files per page, from 1 (default and maximum ${LISTING_PAGE_MAX})`),
  cursor: CursorParam('a nextCursor from the previous page'),
}

const Folder = Type.Object({
  name: Type.String(),
  path: Type.String({ description: 'the folder as a `path` to list' }),
  files: Type.Integer({ description: 'files in the folder and every folder below it' }),
})

export const Listing = Type.Object({
  success: Type.Literal(true),
  files: Type.Array(Type.Ref('FileView')),
  folders: Type.Optional(
    Type.Array(Folder, {
      description: 'with `path` only, on the first page: the direct sub-folders, by name',
    }),
  ),
  nextCursor: Type.Optional(NextCursor()),
})

export const SharedFileView = Type.Object(
  { ...FileView.properties, role: ShareRole },
  { $id: 'SharedFileView', title: 'SharedFileView' },
)

export const SharedListing = Type.Object({
  success: Type.Literal(true),
  files: Type.Array(Type.Ref('SharedFileView')),
  nextCursor: NextCursor(),
})

// The request and answer pieces the item routes share (routes.ts), and the access-list input that
// each kind's own body schema uses.
import { Type } from 'typebox'
import { CursorParam, LimitParam, NextCursorUnlessUnpaged } from '../../contract/index.ts'
import { ID_PATTERN } from '../../platform/ids.ts'

const Id = Type.String({ pattern: ID_PATTERN })

/** Accepted list entries: "*" or something shaped like an e-mail address (acl.ts says what they mean). */
const ACCESS_ENTRY_PATTERN = '^(\\*|[^@\\s]+@[^@\\s]+)$'

/** `readPermissions`, `writePermissions` and the like as a create or an update gives them. */
export const AccessListInput = Type.Array(Type.String({ pattern: ACCESS_ENTRY_PATTERN, maxLength: 254 }), {
  maxItems: 1000,
  description: 'account e-mails, or "*" for everyone with access to the file; empty: no restriction',
})

/** A listing's query: the file, and its paging. */
export const ListQuery = Type.Object(
  {
    file: Id,
    limit: LimitParam('items per page, from 1; default and maximum TESSERA_ITEM_PAGE_MAX_ITEMS (1000)'),
    cursor: CursorParam(),
  },
  { additionalProperties: false },
)

export const ListingNextCursor = NextCursorUnlessUnpaged('item')

/** A DELETE's id, as JSON body {"_id"} or as query ?_id=. */
export const IdInput = Type.Object({ _id: Type.Optional(Id) }, { additionalProperties: false })

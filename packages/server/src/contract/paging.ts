// The paging pieces of the API's list endpoints: the `cursor` and `limit` query parameters and the
// answer's `nextCursor`. The cursors themselves (their codecs, the pages) are platform/paging.ts.
import { Type } from 'typebox'

/**
 * The `cursor` query parameter of a list endpoint. Only described here: its shape is checked by the
 * codecs (platform/paging.ts), so that every malformed cursor answers the same code (a schema
 * mismatch would answer VALIDATION_FAILED).
 */
export function CursorParam(description = 'nextCursor of the previous page') {
  return Type.Optional(
    Type.String({
      description: `${description} (opaque; one this API did not answer is 400 INVALID_CURSOR)`,
    }),
  )
}

/**
 * The `limit` query parameter: digits (query strings are not coerced), its range checked by the
 * route's service, whose refusal names it in words rather than as this pattern.
 */
export function LimitParam(description: string, pattern = '^[1-9][0-9]{0,8}$') {
  return Type.Optional(Type.String({ pattern, description }))
}

/** The answer's `nextCursor`: always there, null on the last page. */
export function NextCursor(description = 'pass as `cursor` for the next page; null on the last page') {
  return Type.Union([Type.String(), Type.Null()], { description })
}

/**
 * The `nextCursor` of the spec's listings that predate paging: left out when the call does not page
 * and everything (`what`: 'item', 'attribute') fits the first page, so such clients see the answer
 * they always had.
 */
export function NextCursorUnlessUnpaged(what: string) {
  return Type.Optional(
    NextCursor(
      'cursor of the next page, null on the last one; left out when the call names neither limit nor ' +
        `cursor and every ${what} fits the first page (the answer of clients that do not page)`,
    ),
  )
}

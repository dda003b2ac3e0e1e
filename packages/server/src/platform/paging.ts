// Paging of every list endpoint, in one place: the cursor codecs, the keyset page read one row past
// its end, and the checks of a page size. A cursor is opaque to clients. Two encodings exist, each
// kept as it has always been answered so that cursors clients hold still page:
// - a key cursor: the last key of a page (a file name, a record ID, a scene node ID) base64url-
//   encoded (keyCursor; directory and shared listings, file items, scene attributes);
// - an ID cursor: the last record ID of a page as it is (idCursor; webhook deliveries, admin accounts).
// A malformed cursor answers 400 INVALID_CURSOR, the same on every endpoint and both dialects, before
// it reaches SQL: `AAAA` decodes to NUL bytes, which PostgreSQL refuses in text (a 500 there), while
// SQLite took them for a name. The schema pieces of a paged route (the `cursor` and `limit` query
// parameters, `nextCursor`) are part of the API contract: contract/paging.ts.
import { AppError } from './errors.ts'
import { isId } from './ids.ts'

/**
 * The longest cursor, in characters: the base64url of the longest key (a 512-character node ID of
 * 4-byte characters is 2,731) with room. Each key's own rule bounds it more tightly.
 */
const CURSOR_MAX_LENGTH = 4096

const BASE64URL = /^[A-Za-z0-9_-]+$/

const NOT_ISSUED = 'The cursor is not one this API answered (pass nextCursor as given).'

export function invalidCursor(): AppError {
  return new AppError('INVALID_CURSOR', NOT_ISSUED)
}

/** How an endpoint's cursors carry the key a page ends at. */
export interface CursorCodec {
  encode(key: string): string
  /** The key inside a cursor this API answered; 400 INVALID_CURSOR for any other. */
  decode(cursor: string): string
}

/**
 * Cursors that are the base64url of a key. A cursor decodes once it is known to be one this API
 * could have answered: canonical base64url of valid UTF-8 (re-encoding gives the same text), not
 * empty, without NUL (no stored key holds one), and a key of its endpoint (`isKey`: a file name, an
 * ID, a node ID).
 */
export function keyCursor(isKey: (key: string) => boolean): CursorCodec {
  const encode = (key: string) => Buffer.from(key, 'utf8').toString('base64url')
  return {
    encode,
    decode(cursor) {
      if (cursor.length > CURSOR_MAX_LENGTH || !BASE64URL.test(cursor)) throw invalidCursor()
      const key = Buffer.from(cursor, 'base64url').toString('utf8')
      if (key === '' || key.includes('\u0000') || encode(key) !== cursor || !isKey(key)) {
        throw invalidCursor()
      }
      return key
    },
  }
}

/** Cursors that are a record ID as it is (24 lowercase hex digits). */
export const idCursor: CursorCodec = {
  encode: (id) => id,
  decode(cursor) {
    if (!isId(cursor)) throw invalidCursor()
    return cursor
  },
}

/** The key a page starts after: undefined without a cursor (the first page). */
export function pageStart(codec: CursorCodec, cursor: string | undefined): string | undefined {
  return cursor === undefined ? undefined : codec.decode(cursor)
}

/**
 * A keyset page from rows read with `limit + 1`: one row more than asked tells whether another page
 * exists without a count. `keyOf` gives the key the next page starts after.
 */
export function pageOfRows<Row>(
  rows: readonly Row[],
  limit: number,
  codec: CursorCodec,
  keyOf: (row: Row) => string,
): { rows: Row[]; nextCursor: string | null } {
  const page = rows.slice(0, limit)
  const last = page.at(-1)
  return {
    rows: page,
    nextCursor: rows.length > limit && last !== undefined ? codec.encode(keyOf(last)) : null,
  }
}

/** A page size, from 1 to `max`: 400 VALIDATION_FAILED `limit must be 1..max` otherwise. */
export function checkPageLimit(limit: number, max: number): number {
  if (!(Number.isInteger(limit) && limit >= 1 && limit <= max)) {
    throw new AppError('VALIDATION_FAILED', `limit must be 1..${max}`)
  }
  return limit
}

/** Does a query's `cursor` hold NUL? (The URL-wide NUL refusal answers INVALID_CURSOR for it.) */
export function cursorHoldsNul(query: unknown): boolean {
  const cursor = (query as { cursor?: unknown } | null)?.cursor
  const values = Array.isArray(cursor) ? cursor : [cursor]
  return values.some((value) => typeof value === 'string' && value.includes('\u0000'))
}

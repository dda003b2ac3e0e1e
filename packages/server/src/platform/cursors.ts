// Page cursors of every list endpoint, checked in one place. A cursor is opaque to clients: the
// last key of a page (a file name, a record ID, a scene node ID) base64url-encoded, or a record ID
// as it is (webhook deliveries, admin accounts). A malformed one answers 400 INVALID_CURSOR, the
// same on every endpoint and both dialects, before it reaches SQL: `AAAA` decodes to NUL bytes,
// which PostgreSQL refuses in text (a 500 there), while SQLite took them for a name.
import { Type } from 'typebox'
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

/**
 * The `cursor` query parameter of a list endpoint. Only described here: its shape is checked by
 * the decoders below, so that every malformed cursor answers the same code (a schema mismatch
 * would answer VALIDATION_FAILED).
 */
export function cursorParam(description: string) {
  return Type.Optional(
    Type.String({
      description: `${description} (opaque; one this API did not answer is 400 INVALID_CURSOR)`,
    }),
  )
}

export function encodeCursor(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url')
}

/**
 * The key inside a base64url cursor, once it is known to be one this API could have answered:
 * canonical base64url of valid UTF-8 (re-encoding gives the same text), not empty, without NUL (no
 * stored key holds one), and a key of its endpoint (`isKey`: a file name, an ID, a node ID).
 */
export function decodeCursor(cursor: string, isKey: (key: string) => boolean): string {
  if (cursor.length > CURSOR_MAX_LENGTH || !BASE64URL.test(cursor)) throw invalidCursor()
  const key = Buffer.from(cursor, 'base64url').toString('utf8')
  if (key === '' || key.includes('\u0000') || encodeCursor(key) !== cursor || !isKey(key)) {
    throw invalidCursor()
  }
  return key
}

/** A cursor that is a record ID as it is (24 lowercase hex digits). */
export function idCursor(cursor: string): string {
  if (!isId(cursor)) throw invalidCursor()
  return cursor
}

/** Does a query's `cursor` hold NUL? (The URL-wide NUL refusal answers INVALID_CURSOR for it.) */
export function cursorHoldsNul(query: unknown): boolean {
  const cursor = (query as { cursor?: unknown } | null)?.cursor
  const values = Array.isArray(cursor) ? cursor : [cursor]
  return values.some((value) => typeof value === 'string' && value.includes('\u0000'))
}

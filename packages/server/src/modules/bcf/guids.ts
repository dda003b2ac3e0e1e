// GUIDs of what Tessera exports: BCF wants a UUID for every topic, viewpoint and comment, and Tessera
// records have IDs of their own. A record that came from BCF keeps the GUID it came with (bcf_origins);
// any other gets one derived from its ID, so exporting twice writes the same GUIDs and a topic that
// comes back into the file it left is recognised.
import { createHash } from 'node:crypto'

export type GuidKind = 'topic' | 'viewpoint' | 'comment' | 'project'

/** BCF's GUID: a UUID in its canonical, lowercase form. */
export const GUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** A UUID (version 8, "custom": RFC 9562) of `kind` and a record ID: the same inputs, the same UUID. */
export function derivedGuid(kind: GuidKind, id: string): string {
  const hex = createHash('sha256').update(`tessera-bcf\0${kind}\0${id}`).digest('hex')
  const variant = ((Number.parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16)
  return [
    hex.slice(0, 8),
    hex.slice(8, 12),
    `8${hex.slice(13, 16)}`,
    `${variant}${hex.slice(17, 20)}`,
    hex.slice(20, 32),
  ].join('-')
}

/** A GUID as read: BCF writers differ in case and braces; stored lowercase without them. */
export function normalGuid(text: string): string | null {
  const bare = text
    .trim()
    .replace(/^\{(.*)\}$/, '$1')
    .toLowerCase()
  return GUID_PATTERN.test(bare) ? bare : null
}

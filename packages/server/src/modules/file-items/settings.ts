// The settings modules/file-items/ owns: the pages of the file-item listings (annotations,
// configurations). Declared here, assembled and parsed once at start-up with every other owner's by
// app/config.ts (platform/settings.ts describes the shape).
import { integer, type Setting, size } from '../../platform/settings.ts'

declare module '../../platform/config.ts' {
  interface Config {
    /** Items per page of the annotation and configuration listings (their default and maximum `limit`). */
    itemPageMaxItems: number
    /** A listing page ends at the first item past this many stored bytes (it always holds one item). */
    itemPageMaxBytes: number
  }
}

export const fileItemSettings = [
  {
    name: 'TESSERA_ITEM_PAGE_MAX_ITEMS',
    key: 'itemPageMaxItems',
    default: '1000',
    help: 'items per page of the annotation and configuration listings (default and maximum limit)',
    parse: integer(1, 100_000),
  },
  {
    name: 'TESSERA_ITEM_PAGE_MAX_BYTES',
    key: 'itemPageMaxBytes',
    default: '2MiB',
    help: 'a page of the annotation and configuration listings ends at the first item past this many bytes',
    parse: size(1024, '1KiB'),
  },
] satisfies Setting[]

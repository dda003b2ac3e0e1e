// The table modules/file-items owns (docs/architecture.md, "Who owns which table"): its row type, added
// to the kernel's one Kysely `Database` type by declaration merging (see modules/files/tables.ts).

/** Running totals of a file's annotations or configurations (kept by every create, update and delete). */
export interface FileItemTotalsTable {
  file_id: string
  /** The item's noun: 'annotation' or 'configuration'. */
  kind: string
  items: number
  /** UTF-8 bytes of the items' stored text and JSON columns. */
  bytes: number
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    file_item_totals: FileItemTotalsTable
  }
}

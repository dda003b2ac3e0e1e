// File views kept per process by the content of their row. A listing answers many rows that have not
// changed since the last request; turning each into its view (five JSON columns parsed, three dates
// formatted) was most of a listing's CPU (docs/benchmarks.md). A view is kept with every input of
// the view that can change after the row is inserted — `version` and `updated_at` move with every
// write to a file except the conversion's progress (repository.ts), which is kept itself, as are the
// state, the thumbnail and the two e-mail addresses joined from `accounts` — and used only while all
// of them still match the row, so a hit is the view toRowView would give now, whichever process
// wrote the row. Bounded: the files kept longest go first. The kept view is the row's part, the same
// for every caller (the caller's `role` and `capabilities` are added per answer, withCaller); it is
// shared between answers, so nothing may change it: routes only serialize it (their response schema).

import type { FileRole } from './access.ts'
import type { FileRowWithEmails } from './repository.ts'
import { type CallerFields, callerFields, type FileViewShape, type RowViewShape, toRowView } from './views.ts'

const MAX_ENTRIES = 5000

/** The columns a kept view depends on (the SQLite listing store's key query reads them). */
export type ViewKeyRow = Pick<
  FileRowWithEmails,
  'id' | 'version' | 'updated_at' | 'progress' | 'state' | 'thumbnail_key' | 'owner_email' | 'user_email'
>

type Kept = Omit<ViewKeyRow, 'id'> & { view: RowViewShape }

/** By file ID: compared field by field, no key string to build and hash per row. */
const kept = new Map<string, Kept>()

function matches(entry: Kept, row: ViewKeyRow): boolean {
  return (
    entry.version === row.version &&
    entry.updated_at === row.updated_at &&
    entry.progress === row.progress &&
    entry.state === row.state &&
    entry.thumbnail_key === row.thumbnail_key &&
    entry.owner_email === row.owner_email &&
    entry.user_email === row.user_email
  )
}

/** The kept view for a row with these key columns, if it is still the row's. */
export function keptView(row: ViewKeyRow): RowViewShape | undefined {
  const entry = kept.get(row.id)
  return entry && matches(entry, row) ? entry.view : undefined
}

/** The caller's fields, one object per role (they depend on nothing else). */
const CALLER_FIELDS = Object.fromEntries(
  (['owner', 'editor', 'viewer'] as const).map((role) => [role, callerFields(role)]),
) as Record<FileRole, CallerFields>

/** A row's view with the caller's `role` and `capabilities` added. */
export function withCaller(view: RowViewShape, role: FileRole): FileViewShape {
  return { ...view, ...CALLER_FIELDS[role] }
}

/** The file's view (the API's FileView) as `role` sees it. */
export function fileView(row: FileRowWithEmails, role: FileRole): FileViewShape {
  return withCaller(rowView(row), role)
}

/** The row's part of the view, kept. */
export function rowView(row: FileRowWithEmails): RowViewShape {
  const hit = keptView(row)
  if (hit !== undefined) return hit
  const view = toRowView(row)
  kept.delete(row.id) // re-inserted last: the oldest entries are the first in the map's order
  if (kept.size >= MAX_ENTRIES) {
    const oldest = kept.keys().next()
    if (!oldest.done) kept.delete(oldest.value)
  }
  const { version, updated_at, progress, state, thumbnail_key, owner_email, user_email } = row
  kept.set(row.id, { version, updated_at, progress, state, thumbnail_key, owner_email, user_email, view })
  return view
}

// File views kept per process by the content of their row. A listing answers many rows that have not
// changed since the last request; turning each into its view (five JSON columns parsed, three dates
// formatted) was most of a listing's CPU (docs/benchmarks.md). A view is kept with every input of
// the view that can change after the row is inserted — `version` and `updated_at` move with every
// write to a file except the conversion's progress (repository.ts), which is kept itself, as are the
// state, the thumbnail and the two e-mail addresses joined from `accounts` — and used only while all
// of them still match the row, so a hit is the view toFileView would give now, whichever process
// wrote the row. Bounded: the files kept longest go first. One view object is kept per caller role
// (the row's part is the same for every caller; `role` and `capabilities` depend on the role only),
// so an unchanged file answers the same object request after request, and its JSON text is kept with
// it (view-text.ts). Kept views are shared: nothing may change them.

import type { FileRole } from './access.ts'
import type { FileRowWithEmails } from './repository.ts'
import { callerFields, type FileViewShape, type RowViewShape, toRowView } from './views.ts'

const MAX_ENTRIES = 5000

/** The columns a kept view depends on (the SQLite listing store's key query reads them). */
export type ViewKeyRow = Pick<
  FileRowWithEmails,
  'id' | 'version' | 'updated_at' | 'progress' | 'state' | 'thumbnail_key' | 'owner_email' | 'user_email'
>

type Kept = Omit<ViewKeyRow, 'id'> & {
  row: RowViewShape
  /** The row's link id, for the owner's view (it moves with `version`: files/repository.ts setShareLink). */
  shareToken: string
  byRole: Partial<Record<FileRole, FileViewShape>>
}

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

/** The kept entry's view as `role` sees it, made once per role. */
function viewAs(entry: Kept, role: FileRole): FileViewShape {
  let view = entry.byRole[role]
  if (view === undefined) {
    view = { ...entry.row, ...callerFields(role, entry.shareToken) }
    entry.byRole[role] = view
  }
  return view
}

/** The kept view for a row with these key columns, as `role` sees it, if it is still the row's. */
export function keptView(row: ViewKeyRow, role: FileRole): FileViewShape | undefined {
  const entry = kept.get(row.id)
  return entry && matches(entry, row) ? viewAs(entry, role) : undefined
}

/** The file's view (the API's FileView) as `role` sees it, kept. */
export function fileView(row: FileRowWithEmails, role: FileRole): FileViewShape {
  const entry = kept.get(row.id)
  if (entry && matches(entry, row)) return viewAs(entry, role)
  kept.delete(row.id) // re-inserted last: the oldest entries are the first in the map's order
  if (kept.size >= MAX_ENTRIES) {
    const oldest = kept.keys().next()
    if (!oldest.done) kept.delete(oldest.value)
  }
  const { version, updated_at, progress, state, thumbnail_key, owner_email, user_email } = row
  const added: Kept = {
    ...{ version, updated_at, progress, state, thumbnail_key, owner_email, user_email },
    row: toRowView(row),
    shareToken: row.share_token,
    byRole: {},
  }
  kept.set(row.id, added)
  return viewAs(added, role)
}

// File views as JSON text, kept per process by the content of their row. A listing answers many
// rows that have not changed since the last request; turning each into its view (five JSON columns
// parsed, three dates formatted) and serializing it again was most of a listing's CPU
// (docs/benchmarks.md). A text is kept with every input of the view that can change after the row
// is inserted — `version` and `updated_at` move with every write to a file except the conversion's
// progress (repository.ts), which is kept itself, as are the state, the thumbnail and the two
// e-mail addresses joined from `accounts` — and used only while all of them still match the row,
// so a hit is the text toRowView would give now, whichever process wrote the row. Bounded: the
// files kept longest go first. The kept text is the row's part of the view, the same for every
// caller; the caller's `role` and `capabilities` are spliced in per answer (withCaller).

import type { FileRole } from './access.ts'
import type { FileRowWithEmails } from './repository.ts'
import { callerFields, toRowView } from './views.ts'

const MAX_ENTRIES = 5000

/** The columns a kept text depends on (listing-repository.ts directoryPageKeys reads them). */
export type ViewKeyRow = Pick<
  FileRowWithEmails,
  'id' | 'version' | 'updated_at' | 'progress' | 'state' | 'thumbnail_key' | 'owner_email' | 'user_email'
>

type Kept = Omit<ViewKeyRow, 'id'> & { text: string }

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

/** The kept text for a row with these key columns, if it is still the row's. */
export function keptViewJson(row: ViewKeyRow): string | undefined {
  const entry = kept.get(row.id)
  return entry && matches(entry, row) ? entry.text : undefined
}

/** The caller's fields as JSON members, one text per role (they depend on nothing else). */
const CALLER_MEMBERS = Object.fromEntries(
  (['owner', 'editor', 'viewer'] as const).map((role) => [
    role,
    JSON.stringify(callerFields(role)).slice(1, -1),
  ]),
) as Record<FileRole, string>

/** A row's view text (an object, never empty) with the caller's `role` and `capabilities` added. */
export function withCaller(rowViewText: string, role: FileRole): string {
  return `${rowViewText.slice(0, -1)},${CALLER_MEMBERS[role]}}`
}

/** The file's view (the API's FileView) as `role` sees it, as JSON text. */
export function fileViewJson(row: FileRowWithEmails, role: FileRole): string {
  return withCaller(rowViewJson(row), role)
}

/** The row's part of the view as JSON text, kept. */
function rowViewJson(row: FileRowWithEmails): string {
  const hit = keptViewJson(row)
  if (hit !== undefined) return hit
  const text = JSON.stringify(toRowView(row))
  kept.delete(row.id) // re-inserted last: the oldest entries are the first in the map's order
  if (kept.size >= MAX_ENTRIES) {
    const oldest = kept.keys().next()
    if (!oldest.done) kept.delete(oldest.value)
  }
  const { version, updated_at, progress, state, thumbnail_key, owner_email, user_email } = row
  kept.set(row.id, { version, updated_at, progress, state, thumbnail_key, owner_email, user_email, text })
  return text
}

// File views as JSON text, kept per process by the content of their row. A listing answers many
// rows that have not changed since the last request; turning each into its view (five JSON columns
// parsed, three dates formatted) and serializing it again was most of a listing's CPU
// (docs/benchmarks.md). A text is kept with every input of the view that can change after the row
// is inserted — `version` and `updated_at` move with every write to a file except the conversion's
// progress (repository.ts), which is kept itself, as are the state, the thumbnail and the two
// e-mail addresses joined from `accounts` — and used only while all of them still match the row,
// so a hit is the text toFileView would give now, whichever process wrote the row. Bounded: the
// files kept longest go first.
import type { FileRowWithEmails } from './repository.ts'
import { toFileView } from './views.ts'

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

/** The file's view (the API's FileView) as JSON text. */
export function fileViewJson(row: FileRowWithEmails): string {
  const hit = keptViewJson(row)
  if (hit !== undefined) return hit
  const text = JSON.stringify(toFileView(row))
  kept.delete(row.id) // re-inserted last: the oldest entries are the first in the map's order
  if (kept.size >= MAX_ENTRIES) {
    const oldest = kept.keys().next()
    if (!oldest.done) kept.delete(oldest.value)
  }
  const { version, updated_at, progress, state, thumbnail_key, owner_email, user_email } = row
  kept.set(row.id, { version, updated_at, progress, state, thumbnail_key, owner_email, user_email, text })
  return text
}

// File views as JSON text, kept per process by the content of their row. A listing answers many
// rows that have not changed since the last request; turning each into its view (five JSON columns
// parsed, three dates formatted) and serializing it again was most of a listing's CPU
// (docs/benchmarks.md). The key is every input of the view that can change after the row is
// inserted — `version` and `updated_at` move with every write to a file except the conversion's
// progress (repository.ts), which is in the key itself, as are the state and the two e-mail
// addresses joined from `accounts` — so a hit is the text toFileView would give now, whichever
// process wrote the row. Bounded: the oldest entries go first.
import type { FileRowWithEmails } from './repository.ts'
import { toFileView } from './views.ts'

const MAX_ENTRIES = 5000

const texts = new Map<string, string>()

function keyOf(row: FileRowWithEmails): string {
  return `${row.id}\u0000${row.version}\u0000${row.updated_at}\u0000${row.progress}\u0000${row.state}\u0000${row.thumbnail_key ?? ''}\u0000${row.owner_email}\u0000${row.user_email}`
}

/** The file's view (the API's FileView) as JSON text. */
export function fileViewJson(row: FileRowWithEmails): string {
  const key = keyOf(row)
  let text = texts.get(key)
  if (text === undefined) {
    text = JSON.stringify(toFileView(row))
    if (texts.size >= MAX_ENTRIES) {
      const oldest = texts.keys().next()
      if (!oldest.done) texts.delete(oldest.value)
    }
    texts.set(key, text)
  }
  return text
}

// What an outbox event means for live sessions (a `changed` notice, or an access change).
import type { EmittedEvent } from '../../events/index.ts'
import type { RelayMessage } from './bus.ts'

/** The relay message an event means for live sessions, or null (not about something they show). */
export function changeOf(event: EmittedEvent): Extract<RelayMessage, { o: 'x' }> | null {
  const f = event.fileId
  if (event.event === 'file_shared' || event.event === 'file_unshared')
    return { o: 'x', f, k: 'access', i: f }
  if (event.event === 'attribute_updated') return { o: 'x', f, k: 'attributes', i: f }
  if (event.event.startsWith('file_')) return { o: 'x', f, k: 'file', i: f }
  const kind = event.event.startsWith('annotation_')
    ? 'annotation'
    : event.event.startsWith('configuration_')
      ? 'configuration'
      : null
  if (kind === null) return null
  // annotation_discussion_updated names its annotation in `annotation`; the others are the record
  // (`_id`) or its before and after (`new._id`).
  const data = JSON.parse(event.data) as { _id?: string; new?: { _id?: string }; annotation?: string }
  return { o: 'x', f, k: kind, i: data._id ?? data.new?._id ?? data.annotation ?? '' }
}

// The revision history in a file's details: each revision's number, date, size and uploader, and
// the original bytes of the earlier ones (the current one is "Download original" above). The number
// shown is the server's `revisionNumber` (counts uploads: 1, 2, 3); `__v` only names the revision
// in the download route (shares move it too, so it is no number for people).
import { useEffect, useState } from 'preact/hooks'
import { client, type FileRecord, type FileRevision, isMissingRoute } from '../api/index.ts'
import { Notice } from '../ui/notice.tsx'
import { useAction } from '../ui/use-action.ts'
import { formatBytes, formatDate } from '../util.ts'

export function Revisions(props: { file: FileRecord }) {
  const f = props.file
  const [revisions, setRevisions] = useState<FileRevision[] | null>(null)
  const action = useAction()

  // Reloaded whenever the record changes (`__v`): a new revision, or a share, shows at once.
  useEffect(() => {
    let stale = false
    action.clear()
    client.files.listRevisions(f._id).then(
      (list) => {
        if (!stale) setRevisions(list)
      },
      (e: unknown) => {
        if (stale) return
        // A server without revision history: the section stays away.
        setRevisions(isMissingRoute(e) ? null : [])
        if (!isMissingRoute(e)) action.fail(e)
      },
    )
    return () => {
      stale = true
    }
  }, [f._id, f.__v])

  if (revisions === null) return null
  const me = client.session.identity?.email.toLowerCase()
  return (
    <section aria-label="Revisions">
      <h3>Revisions</h3>
      <ul class="shares revisions">
        {revisions.map((r) => (
          <li key={r.__v} data-revision={r.revisionNumber}>
            <span>
              #{r.revisionNumber} · {formatDate(r.revisionDate)} · {formatBytes(r.size)} ·{' '}
              {r.uploadedBy.toLowerCase() === me ? 'you' : r.uploadedBy}
            </span>
            {r.current ? (
              <span class="tag">current</span>
            ) : (
              <button
                type="button"
                class="ghost small"
                aria-label={`Download revision ${r.revisionNumber}`}
                onClick={() => void action.run(() => client.files.saveAs(f._id, { revision: r.__v }, r.name))}
              >
                Download
              </button>
            )}
          </li>
        ))}
      </ul>
      <Notice kind="error" message={action.error} />
    </section>
  )
}

// One file: state (and the failure reason in plain words), revision and history, downloads,
// sharing, delete.
import { useEffect, useRef, useState } from 'preact/hooks'
import { client, type FileRecord } from '../api/index.ts'
import { linkClick } from '../router.ts'
import { Notice } from '../ui/notice.tsx'
import { useAction } from '../ui/use-action.ts'
import { formatBytes, formatDate } from '../util.ts'
import { StarButton } from './file-list.tsx'
import { LinkSharing } from './link-share.tsx'
import { Revisions } from './revisions.tsx'

type Act = (work: () => Promise<unknown>, done?: string) => Promise<void>

function Facts(props: { file: FileRecord; isOwner: boolean }) {
  const f = props.file
  return (
    <dl>
      <dt>State</dt>
      <dd data-state={f.state}>
        {f.state === 'converting' ? `Converting ${Math.round(f.progress ?? 0)}%` : f.state}
      </dd>
      {f.state === 'error' && (
        <>
          <dt>Why it failed</dt>
          <dd class="error" data-testid="failure-reason">
            {f.error || 'The conversion failed for an unknown reason.'}
          </dd>
        </>
      )}
      <dt>Size</dt>
      <dd>{formatBytes(f.size)}</dd>
      <dt>Revision</dt>
      <dd data-testid="revision-number">
        #{f.revisionNumber} of {formatDate(f.revisionDate)} (first uploaded {formatDate(f.created)})
      </dd>
      <dt>Owner</dt>
      <dd>{props.isOwner ? 'you' : f.owner}</dd>
      <dt>Starred by</dt>
      <dd data-testid="starred-by">{f.favoritedBy.length === 0 ? 'nobody yet' : f.favoritedBy.join(', ')}</dd>
      {f.role !== 'owner' && (
        <>
          <dt>Your role</dt>
          <dd>{f.role}</dd>
        </>
      )}
    </dl>
  )
}

/** `.stl` of `Part.STL`; '' when the name has none. */
function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.')
  return dot > 0 ? name.slice(dot).toLowerCase() : ''
}

/** The owner's buttons: a new revision (same name: the server matches revisions by path) and delete. */
function OwnerButtons(props: {
  file: FileRecord
  act: Act
  onUpload: (file: File) => void
  onDeleted: () => void
}) {
  const f = props.file
  const revision = useRef<HTMLInputElement>(null)
  const [refused, setRefused] = useState('')
  const extension = extensionOf(f.name)
  return (
    <>
      <button type="button" class="ghost" onClick={() => revision.current?.click()}>
        Upload new revision
      </button>
      <input
        ref={revision}
        type="file"
        hidden
        data-testid="revision-input"
        accept={extension || undefined}
        onChange={(e) => {
          const picked = e.currentTarget.files?.[0]
          e.currentTarget.value = ''
          if (!picked) return
          // The revision takes the file's name: bytes of another format under it would only fail
          // to convert (a GLB read as STL), so a picked file must have the same extension.
          if (extensionOf(picked.name) !== extension) {
            setRefused(
              `A new revision of ${f.name} must be a ${extension || 'file without extension'} file too; ${picked.name} is not.`,
            )
            return
          }
          setRefused('')
          props.onUpload(new File([picked], f.name, { type: picked.type }))
        }}
      />
      {refused && (
        <p class="error" role="alert" data-testid="revision-refused">
          {refused}
        </p>
      )}
      <button
        type="button"
        class="danger"
        onClick={() => {
          if (window.confirm(`Delete ${f.name} with its annotations, views and shares?`))
            void props.act(() => client.files.deleteFile(f._id)).then(props.onDeleted)
        }}
      >
        Delete
      </button>
    </>
  )
}

function Buttons(props: {
  file: FileRecord
  isOwner: boolean
  act: Act
  onUpload: (file: File) => void
  onDeleted: () => void
}) {
  const { file: f, act } = props
  const viewUrl = `/view/${f._id}`
  return (
    <div class="buttons">
      {f.state === 'ready' ? (
        <a class="button" href={viewUrl} onClick={(e) => linkClick(e, viewUrl)}>
          Open viewer
        </a>
      ) : null}
      <button
        type="button"
        class="ghost"
        onClick={() => void act(() => client.files.saveAs(f._id, 'download', f.name))}
      >
        Download original
      </button>
      {f.state === 'ready' && (
        <button
          type="button"
          class="ghost"
          onClick={() => void act(() => client.files.saveAs(f._id, 'optimized', f.name))}
        >
          Download GLB
        </button>
      )}
      {props.isOwner && (
        <OwnerButtons file={f} act={act} onUpload={props.onUpload} onDeleted={props.onDeleted} />
      )}
    </div>
  )
}

function ShareForm(props: { file: FileRecord; act: Act }) {
  const [email, setEmail] = useState('')
  const [role, setRole] = useState<'viewer' | 'editor'>('viewer')
  return (
    <form
      class="inline"
      onSubmit={(e) => {
        e.preventDefault()
        void props
          .act(() => client.files.share(props.file._id, email.trim(), role), `Shared with ${email.trim()}.`)
          .then(() => setEmail(''))
      }}
    >
      <input
        type="email"
        required
        placeholder="colleague@example.com"
        aria-label="E-mail to share with"
        value={email}
        onInput={(e) => setEmail(e.currentTarget.value)}
      />
      <select aria-label="Role" value={role} onChange={(e) => setRole(e.currentTarget.value as 'viewer')}>
        <option value="viewer">viewer</option>
        <option value="editor">editor</option>
      </select>
      <button type="submit">Share</button>
    </form>
  )
}

function Sharing(props: { file: FileRecord; act: Act }) {
  const f = props.file
  return (
    <section aria-label="Sharing">
      <h3>Shared with</h3>
      {f.roles.length === 0 ? (
        <p class="hint">Nobody yet.</p>
      ) : (
        <ul class="shares">
          {f.roles.map((r) => (
            <li key={r.email}>
              <span>{r.email}</span> <span class="tag">{r.role}</span>
              <button
                type="button"
                class="ghost small"
                aria-label={`Revoke ${r.email}`}
                onClick={() =>
                  void props.act(() => client.files.unshare(f._id, r.email), `Revoked ${r.email}.`)
                }
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
      <ShareForm file={f} act={props.act} />
    </section>
  )
}

export function FileDetails(props: {
  file: FileRecord
  onClose: () => void
  onChanged: () => void
  onDeleted: () => void
  onUpload: (file: File) => void
  onStar: (on: boolean) => void
}) {
  const f = props.file
  const me = client.session.identity?.email.toLowerCase()
  const isOwner = f.owner.toLowerCase() === me
  const action = useAction()
  // The outcome is written at the end of a panel that scrolls: brought into view, or it goes unseen.
  const outcome = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (action.message || action.error) outcome.current?.scrollIntoView({ block: 'nearest' })
  }, [action.message, action.error])

  async function act(work: () => Promise<unknown>, done?: string): Promise<void> {
    if (await action.run(work, done)) props.onChanged()
  }

  return (
    <aside class="details" aria-label={`Details of ${f.name}`}>
      <header>
        <h2 title={f.name}>{f.name}</h2>
        <StarButton file={f} onStar={props.onStar} label="Favourite" />
        <button type="button" class="ghost small" aria-label="Close details" onClick={props.onClose}>
          ✕
        </button>
      </header>
      <Facts file={f} isOwner={isOwner} />
      <Buttons file={f} isOwner={isOwner} act={act} onUpload={props.onUpload} onDeleted={props.onDeleted} />
      <Revisions file={f} />
      {isOwner && <Sharing file={f} act={act} />}
      {isOwner && <LinkSharing file={f} onChanged={props.onChanged} />}
      <div ref={outcome}>
        <Notice kind="success" message={action.message} />
        <Notice kind="error" message={action.error} />
      </div>
    </aside>
  )
}

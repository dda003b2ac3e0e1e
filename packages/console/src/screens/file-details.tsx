// One file: state (and the failure reason in plain words), revision and history, downloads,
// sharing, delete.
import { useRef, useState } from 'preact/hooks'
import { client, type FileRecord } from '../api/index.ts'
import { linkClick } from '../router.ts'
import { Notice } from '../ui/notice.tsx'
import { useAction } from '../ui/use-action.ts'
import { formatBytes, formatDate } from '../util.ts'
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
      {f.role !== 'owner' && (
        <>
          <dt>Your role</dt>
          <dd>{f.role}</dd>
        </>
      )}
    </dl>
  )
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
        onChange={(e) => {
          const picked = e.currentTarget.files?.[0]
          if (picked) props.onUpload(new File([picked], f.name, { type: picked.type }))
          e.currentTarget.value = ''
        }}
      />
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
}) {
  const f = props.file
  const me = client.session.identity?.email.toLowerCase()
  const isOwner = f.owner.toLowerCase() === me
  const action = useAction()

  async function act(work: () => Promise<unknown>, done?: string): Promise<void> {
    if (await action.run(work, done)) props.onChanged()
  }

  return (
    <aside class="details" aria-label={`Details of ${f.name}`}>
      <header>
        <h2 title={f.name}>{f.name}</h2>
        <button type="button" class="ghost small" aria-label="Close details" onClick={props.onClose}>
          ✕
        </button>
      </header>
      <Facts file={f} isOwner={isOwner} />
      <Buttons file={f} isOwner={isOwner} act={act} onUpload={props.onUpload} onDeleted={props.onDeleted} />
      <Revisions file={f} />
      {isOwner && <Sharing file={f} act={act} />}
      <Notice kind="success" message={action.message} />
      <Notice kind="error" message={action.error} />
    </aside>
  )
}

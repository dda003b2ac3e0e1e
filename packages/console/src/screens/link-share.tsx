// "Share by link" in the owner's file details: create a link (optional expiry and password), copy
// it (its address is shown only when made or rotated: the server keeps only a hash of the token),
// rotate it, revoke it; and whether its visitors may join the file's live sessions (the record's
// `allowLivePublicMeetings`). docs/console.md, "Share by link".
import { useEffect, useState } from 'preact/hooks'
import { type CreatedLink, client, type FileRecord, type LinkSettings, linkUrl } from '../api/index.ts'
import { Notice } from '../ui/notice.tsx'
import { useAction } from '../ui/use-action.ts'
import { formatDate } from '../util.ts'

/** The end of the picked day, in the browser's time zone: a link "until 31 Jan" opens all that day. */
function endOfDay(day: string): string {
  return new Date(`${day}T23:59:59`).toISOString()
}

function CreateForm(props: { onCreate: (input: { expiresAt?: string; password?: string }) => void }) {
  const [day, setDay] = useState('')
  const [password, setPassword] = useState('')
  return (
    <form
      class="link-form"
      onSubmit={(e) => {
        e.preventDefault()
        props.onCreate({ ...(day ? { expiresAt: endOfDay(day) } : {}), ...(password ? { password } : {}) })
        setPassword('')
      }}
    >
      <label>
        Expires after (optional)
        <input type="date" value={day} onInput={(e) => setDay(e.currentTarget.value)} />
      </label>
      <label>
        Password (optional)
        <input
          type="password"
          autoComplete="new-password"
          minLength={4}
          maxLength={256}
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
      </label>
      <button type="submit">Create link</button>
    </form>
  )
}

function Address(props: { token: string }) {
  const url = linkUrl(window.location.origin, props.token)
  const [copied, setCopied] = useState('')
  return (
    <div class="link-address">
      <label>
        Link (copy it now: it is shown only once)
        <input
          type="text"
          readOnly
          value={url}
          data-testid="link-url"
          onFocus={(e) => e.currentTarget.select()}
        />
      </label>
      <button
        type="button"
        onClick={() =>
          void navigator.clipboard.writeText(url).then(
            () => setCopied('Link copied.'),
            () => setCopied('Copying was refused: select the link and copy it.'),
          )
        }
      >
        Copy link
      </button>
      <Notice kind="success" message={copied} />
    </div>
  )
}

function LinkFacts(props: { link: LinkSettings }) {
  const { link } = props
  return (
    <p data-testid="link-facts">
      {link.expired ? 'Expired' : 'Active'} ·{' '}
      {link.expiresAt
        ? `${link.expired ? 'expired' : 'expires'} ${formatDate(link.expiresAt)}`
        : 'never expires'}{' '}
      · {link.hasPassword ? 'password' : 'no password'}
    </p>
  )
}

/**
 * The file's `allowLivePublicMeetings`, as the record says; a failed change shows its error and the
 * box keeps the record's state (the re-render of the error puts the click back).
 */
function LiveMeetings(props: { file: FileRecord; onChanged: () => void }) {
  const fileId = props.file._id
  const [allow, setAllow] = useState(props.file.allowLivePublicMeetings)
  useEffect(() => setAllow(props.file.allowLivePublicMeetings), [props.file.allowLivePublicMeetings])
  const action = useAction()
  const change = (want: boolean) =>
    void action.run(
      async () => {
        setAllow((await client.files.setLiveMeetings(fileId, want)).allowLivePublicMeetings)
        props.onChanged()
      },
      want
        ? 'Link visitors can now join live sessions of this file.'
        : 'Link visitors can no longer join live sessions; those in one were let go.',
    )
  return (
    <div class="live-meetings">
      <label class="check">
        <input
          type="checkbox"
          checked={allow}
          aria-describedby="live-meetings-hint"
          onChange={(e) => change(e.currentTarget.checked)}
        />
        Let link visitors join live sessions
      </label>
      <p id="live-meetings-hint" class="hint">
        They then see who else has the file open, with their cameras and selections, under a name they choose.
        Turning this off ends their live connection at once.
      </p>
      <Notice kind="success" message={action.message} />
      <Notice kind="error" message={action.error} />
    </div>
  )
}

export function LinkSharing(props: { file: FileRecord; onChanged: () => void }) {
  const fileId = props.file._id
  const [link, setLink] = useState<LinkSettings | null | undefined>(undefined)
  // The address made here, with its link's id: shown while that link is the file's (a refreshed
  // record, e.g. after a change below, keeps it; another file or another link does not).
  const [made, setMade] = useState<{ id: string; token: string } | null>(null)
  const action = useAction()
  // The owner's record names the file's link (`shareToken`, its id): no link, nothing to ask.
  const linkId = props.file.shareToken
  useEffect(() => setMade(null), [fileId])
  useEffect(() => {
    if (!linkId) setLink(null)
    else client.links.get(fileId).then(setLink, () => setLink(null))
  }, [fileId, linkId])
  const took = (created: CreatedLink) => {
    setLink(created.link)
    setMade(created.token ? { id: created.link.id, token: created.token } : null)
  }
  const token = made && link && made.id === link.id ? made.token : null
  const run = (work: () => Promise<unknown>, done: string) => void action.run(work, done)
  return (
    <section aria-labelledby="link-sharing-title" class="link-sharing">
      <h3 id="link-sharing-title">Share by link</h3>
      {link === undefined ? (
        <p class="hint">Checking for a link…</p>
      ) : link === null ? (
        <>
          <p class="hint">Anyone with the link can view this file read-only, without an account.</p>
          <CreateForm
            onCreate={(input) =>
              run(async () => took(await client.links.create(fileId, input)), 'Link created.')
            }
          />
        </>
      ) : (
        <>
          <LinkFacts link={link} />
          {token ? (
            <Address token={token} />
          ) : (
            <p class="hint">The link’s address was shown when it was made. Rotate it to get a new one.</p>
          )}
          <div class="buttons">
            <button
              type="button"
              class="ghost"
              onClick={() => {
                if (window.confirm('Make a new link? The current one stops working at once.'))
                  run(
                    async () => took(await client.links.rotate(fileId)),
                    'New link made; the old one no longer works.',
                  )
              }}
            >
              Rotate link
            </button>
            <button
              type="button"
              class="danger"
              onClick={() => {
                if (window.confirm('Revoke the link? Everyone viewing through it is cut off.'))
                  run(async () => {
                    await client.links.revoke(fileId)
                    setLink(null)
                    setMade(null)
                  }, 'Link revoked.')
              }}
            >
              Revoke link
            </button>
          </div>
        </>
      )}
      <Notice kind="success" message={action.message} />
      <Notice kind="error" message={action.error} />
      <LiveMeetings file={props.file} onChanged={props.onChanged} />
    </section>
  )
}

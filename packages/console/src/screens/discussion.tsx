// The discussion under an opened annotation: its replies (author, date, edited), a reply box when
// its writeDiscussion lets me (viewers too), Edit and Delete on my own replies (Delete on every
// reply for the file's owner). Opening the thread marks it read; replies by others arrive through
// the event stream (live.ts) and reload it.
import { useCallback, useEffect, useState } from 'preact/hooks'
import { type Annotation, type AnnotationReply, client, type DiscussionState } from '../api/index.ts'
import { Notice } from '../ui/notice.tsx'
import { type Act, useAction } from '../ui/use-action.ts'
import { discussionRights, type FileAccess } from './access.ts'
import { useLiveDiscussionEvents } from './live.ts'

const MAX_CHARS = 4000

function when(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
}

function ReplyForm(props: {
  label: string
  submit: string
  initial?: string
  onSend: (text: string) => Promise<boolean>
  onCancel?: () => void
}) {
  const [text, setText] = useState(props.initial ?? '')
  return (
    <form
      class="stack reply-form"
      aria-label={props.label}
      onSubmit={async (e) => {
        e.preventDefault()
        if (text.trim() && (await props.onSend(text.trim())) && !props.onCancel) setText('')
      }}
    >
      <textarea
        aria-label={props.label}
        placeholder="Write a reply…"
        maxLength={MAX_CHARS}
        required
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      <div class="buttons">
        <button type="submit" class="small">
          {props.submit}
        </button>
        {props.onCancel && (
          <button type="button" class="ghost small" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  )
}

function ReplyItem(props: {
  reply: AnnotationReply
  mine: boolean
  canWrite: boolean
  moderate: boolean
  run: Act
}) {
  const { reply: r, run } = props
  const [editing, setEditing] = useState(false)
  if (editing) {
    return (
      <li class="reply">
        <ReplyForm
          label="Edit your reply"
          submit="Save"
          initial={r.text}
          onSend={async (text) => {
            const ok = await run(() => client.discussions.edit(r._id, text))
            if (ok) setEditing(false)
            return ok
          }}
          onCancel={() => setEditing(false)}
        />
      </li>
    )
  }
  return (
    <li class="reply" data-reply={r.text}>
      <span class="reply-head">
        <span class="reply-author">{r.author}</span>{' '}
        <time class="meta" dateTime={new Date(r.date).toISOString()}>
          {when(r.date)}
        </time>
        {r.edited !== null && <span class="meta"> (edited)</span>}
      </span>
      <p class="reply-text">{r.text}</p>
      <span class="buttons">
        {props.mine && props.canWrite && (
          <button
            type="button"
            class="ghost small"
            aria-label="Edit your reply"
            onClick={() => setEditing(true)}
          >
            Edit
          </button>
        )}
        {((props.mine && props.canWrite) || props.moderate) && (
          <button
            type="button"
            class="ghost small"
            aria-label={`Delete reply by ${r.author}`}
            onClick={() => void run(() => client.discussions.delete(r._id))}
          >
            Delete
          </button>
        )}
      </span>
    </li>
  )
}

/** The thread of the opened annotation; `tick` changes when the stream says a thread changed. */
export function Thread(props: {
  annotation: Annotation
  access: FileAccess
  tick: number
  onRead: () => void
}) {
  const a = props.annotation
  const rights = discussionRights(a, props.access)
  const [replies, setReplies] = useState<AnnotationReply[] | null>(null)
  const action = useAction()
  const { onRead } = props
  // A guest (link) has no account to keep a read marker for.
  const keepsMarker = !props.access.guest

  const load = useCallback(async () => {
    const all = await client.discussions.replies(a._id)
    setReplies(all)
    if (all.length > 0 && keepsMarker) {
      await client.discussions.markRead(a._id)
      onRead()
    }
  }, [a._id, onRead, keepsMarker])

  useEffect(() => {
    if (rights.read) void action.run(load)
  }, [load, rights.read, props.tick])

  const run: Act = async (work) => {
    const ok = await action.run(work)
    if (ok) await action.run(load)
    return ok
  }

  const title = a.name || 'annotation'
  if (!rights.read) return <p class="hint">Its discussion is not open to you.</p>
  return (
    <section class="thread" aria-label={`Discussion of ${title}`}>
      <h3 class="thread-title">Discussion</h3>
      {replies !== null && replies.length === 0 && <p class="hint">No replies yet.</p>}
      {replies && replies.length > 0 && (
        <ol class="replies">
          {replies.map((r) => (
            <ReplyItem
              key={r._id}
              reply={r}
              mine={r.author.toLowerCase() === props.access.me}
              canWrite={rights.write}
              moderate={rights.moderate}
              run={run}
            />
          ))}
        </ol>
      )}
      {rights.write ? (
        <ReplyForm
          label={`Reply to ${title}`}
          submit="Reply"
          onSend={(text) => run(() => client.discussions.reply(a._id, text))}
        />
      ) : (
        <p class="hint">
          {props.access.guest
            ? 'Replying needs an account: a link is for reading.'
            : 'Its permissions do not let you reply.'}
        </p>
      )}
      <Notice kind="error" message={action.error} />
    </section>
  )
}

/** My view of the file's threads (counts, unread) and a tick that moves when the stream says one changed. */
export function useDiscussions(file: string) {
  const [threads, setThreads] = useState<Map<string, DiscussionState>>(new Map())
  const [tick, setTick] = useState(0)
  const reload = useCallback(async () => {
    try {
      const all = await client.discussions.summary(file)
      setThreads(new Map(all.map((d) => [d.annotation, d])))
    } catch {
      // The counts are a hint: the annotations themselves say what failed.
    }
  }, [file])
  useEffect(() => {
    void reload()
  }, [reload])
  const onEvent = useCallback(async () => {
    setTick((n) => n + 1)
    await reload()
  }, [reload])
  useLiveDiscussionEvents(file, onEvent, true)
  return { threads, tick, reload }
}

/** Replies and unread replies of a thread, beside its annotation's title. */
export function ReplyCount(props: { thread: DiscussionState | undefined }) {
  const t = props.thread
  if (!t || t.replies === 0) return null
  const replies = `${t.replies} ${t.replies === 1 ? 'reply' : 'replies'}`
  return (
    <span class="reply-count">
      <span class="meta">{replies}</span>
      {t.unread > 0 && (
        <span class="badge unread" role="status">
          {t.unread} new<span class="sr-only"> {t.unread === 1 ? 'reply' : 'replies'}</span>
        </span>
      )}
    </span>
  )
}

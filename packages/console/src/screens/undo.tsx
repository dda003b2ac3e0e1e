// "Annotation deleted — Undo": deleting an annotation or a saved view asks no question. The item
// leaves the list at once, and the deletion is sent only when the notice goes (after UNDO_MS, on ✕,
// on the next deletion, or when the panel closes). Undo before that cancels it, so the item comes
// back as it was: same ID, author, date and place in the list (a re-created copy would be none of
// those). The Undo button takes the focus (the deleted item's buttons are gone), and the time stops
// running while the focus or the pointer is on the notice (WCAG 2.2.1).
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { describeError } from '../util.ts'

const UNDO_MS = 10_000

export interface Deletion {
  /** The item's ID: hidden from its list while the deletion waits and once it is sent. */
  id: string
  /** What is being deleted, as the notice says it: `Annotation "Weld" deleted`. */
  text: string
  /** Sends the deletion to the server. */
  send: () => Promise<unknown>
}

/** The pending deletion (one at a time: a new one sends the previous), its notice and its error. */
export function useDeferredDelete(onSent: () => void) {
  const [pending, setPending] = useState<Deletion | null>(null)
  // Sent deletions stay hidden (no flash of the item before the list reloads without it); a
  // refused one comes back.
  const [sent, setSent] = useState<ReadonlySet<string>>(new Set())
  const [error, setError] = useState('')
  const current = useRef<Deletion | null>(null)
  current.current = pending

  const send = async (deletion: Deletion) => {
    setSent((ids) => new Set(ids).add(deletion.id))
    try {
      await deletion.send()
    } catch (e) {
      setError(`Could not delete: ${describeError(e)}`)
      setSent((ids) => new Set([...ids].filter((id) => id !== deletion.id)))
    }
    onSent()
  }
  const offer = (deletion: Deletion) => {
    setError('')
    if (current.current) void send(current.current)
    setPending(deletion)
  }
  const close = () => {
    const deletion = current.current
    setPending(null)
    if (deletion) void send(deletion)
  }
  // Leaving the panel (another tab, another screen) or the page makes the deletion final.
  useEffect(() => {
    const flush = () => {
      const deletion = current.current
      current.current = null
      if (deletion) void deletion.send().catch(() => undefined)
    }
    window.addEventListener('pagehide', flush)
    return () => {
      window.removeEventListener('pagehide', flush)
      flush()
    }
  }, [])

  const notice = (
    <>
      {pending && (
        <UndoNotice key={pending.id} text={pending.text} onUndo={() => setPending(null)} onClose={close} />
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </>
  )
  const isHidden = (id: string) => id === pending?.id || sent.has(id)
  return { offer, isHidden, notice }
}

function UndoNotice(props: { text: string; onUndo: () => void; onClose: () => void }) {
  const button = useRef<HTMLButtonElement>(null)
  const [held, setHeld] = useState(false)
  // Before the first paint (a layout effect): the notice never shows without the focus on Undo, so
  // an Enter pressed as soon as it appears undoes, however busy the page's thread is.
  useLayoutEffect(() => button.current?.focus(), [])
  useEffect(() => {
    if (held) return
    const timer = setTimeout(props.onClose, UNDO_MS)
    return () => clearTimeout(timer)
  }, [held])

  return (
    <div
      class="undo-notice"
      role="status"
      onFocusIn={() => setHeld(true)}
      onFocusOut={() => setHeld(false)}
      onMouseEnter={() => setHeld(true)}
      onMouseLeave={() => setHeld(false)}
    >
      <span>{props.text}</span>
      <button ref={button} type="button" class="small" onClick={props.onUndo}>
        Undo
      </button>
      <button type="button" class="ghost small" aria-label="Dismiss" onClick={props.onClose}>
        ✕
      </button>
    </div>
  )
}

// "Annotation deleted — Undo": deleting an annotation or a saved view asks no question; instead this
// notice offers, for UNDO_MS, to put it back (re-created with the same content: a new ID, and the
// one who undoes becomes its author). The Undo button takes the focus (the deleted item's buttons
// are gone), and the time stops running while the focus or the pointer is on the notice, so nobody
// loses the chance mid-reach (WCAG 2.2.1).
import { useEffect, useRef, useState } from 'preact/hooks'
import { useAction } from '../ui/use-action.ts'
import { describeError } from '../util.ts'

export const UNDO_MS = 10_000

export interface Undoable {
  /** What was deleted, as the notice says it: `Annotation "Weld" deleted`. */
  text: string
  restore: () => Promise<unknown>
}

/** The notice of the last deletion (one at a time: a new one replaces it). */
export function useUndo(onRestored: () => void) {
  const [pending, setPending] = useState<Undoable | null>(null)
  const notice = pending && (
    <UndoNotice
      key={pending.text}
      undoable={pending}
      onClose={() => setPending(null)}
      onRestored={onRestored}
    />
  )
  return { offer: setPending, notice }
}

function UndoNotice(props: { undoable: Undoable; onClose: () => void; onRestored: () => void }) {
  const button = useRef<HTMLButtonElement>(null)
  const [held, setHeld] = useState(false)
  const { error, run } = useAction((e) => `Could not undo: ${describeError(e)}`)
  useEffect(() => button.current?.focus(), [])
  useEffect(() => {
    if (held || error) return
    const timer = setTimeout(props.onClose, UNDO_MS)
    return () => clearTimeout(timer)
  }, [held, error])

  async function undo(): Promise<void> {
    if (!(await run(() => props.undoable.restore()))) return
    props.onClose()
    props.onRestored()
  }

  return (
    <div
      class="undo-notice"
      role="status"
      onFocusIn={() => setHeld(true)}
      onFocusOut={() => setHeld(false)}
      onMouseEnter={() => setHeld(true)}
      onMouseLeave={() => setHeld(false)}
    >
      <span>{error || props.undoable.text}</span>
      <button ref={button} type="button" class="small" onClick={() => void undo()}>
        Undo
      </button>
      <button type="button" class="ghost small" aria-label="Dismiss" onClick={props.onClose}>
        ✕
      </button>
    </div>
  )
}

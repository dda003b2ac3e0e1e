// The console's one message paragraph: an error (role alert, read out at once), a notice or a
// success (role status, read out politely). Nothing renders while the message is empty.
import type { ComponentChildren } from 'preact'

type NoticeKind = 'error' | 'info' | 'success'

// The classes the stylesheet (and the browser tests) already know these paragraphs by.
const CLASS: Record<NoticeKind, string> = { error: 'error', info: 'notice', success: 'ok' }

export function Notice(props: {
  kind: NoticeKind
  message: string
  /** A button or link after the words (a retry, a dismiss). */
  action?: ComponentChildren
  /** The API error code, for tests and styles; never shown. */
  code?: string
}) {
  if (!props.message) return null
  return (
    <p class={CLASS[props.kind]} role={props.kind === 'error' ? 'alert' : 'status'} data-code={props.code}>
      {props.message}
      {props.action}
    </p>
  )
}

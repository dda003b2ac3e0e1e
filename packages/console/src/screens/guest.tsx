// A guest through a link (`/#/link/<token>`): no account. Opens the link (asking its password when
// it has one), then shows the viewer read-only under a "Viewing through a link" banner. A link that
// is unknown, revoked, rotated, expired or whose file is gone says so in words, also when it ends
// while open (the SDK's renewal hears it).
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { ApiError, client } from '../api/index.ts'
import { Notice } from '../ui/notice.tsx'
import { describeError } from '../util.ts'
import { ThemeSwitch } from './theme-switch.tsx'
import { ViewerScreen } from './viewer.tsx'

type GuestState =
  | { kind: 'opening' }
  | { kind: 'password'; error: string }
  | { kind: 'closed'; message: string; code: string }
  | { kind: 'open'; fileId: string }

const ENDED =
  'This link no longer works: its owner revoked or replaced it, or deleted the file. Ask the owner for a new link.'

/** What a refusal to open means to the visitor. */
function refusal(error: unknown): GuestState {
  const code = error instanceof ApiError ? error.code : ''
  if (code === 'LINK_PASSWORD_REQUIRED') return { kind: 'password', error: '' }
  if (code === 'LINK_PASSWORD_WRONG') return { kind: 'password', error: 'That password is not right.' }
  if (code === 'LINK_EXPIRED')
    return { kind: 'closed', code, message: 'This link has expired. Ask its owner for a new one.' }
  if (code === 'LINK_NOT_FOUND') return { kind: 'closed', code, message: ENDED }
  if (code === 'TOO_MANY_REQUESTS') {
    const wait =
      error instanceof ApiError && error.retryAfter ? ` Try again in ${Math.ceil(error.retryAfter)} s.` : ''
    return { kind: 'closed', code, message: `Too many links were opened from here.${wait}` }
  }
  return { kind: 'closed', code, message: describeError(error) }
}

export function GuestApp(props: { token: string }) {
  const [state, setState] = useState<GuestState>({ kind: 'opening' })
  const open = async (password?: string): Promise<void> => {
    try {
      const guest = await client.links.open(props.token, password, (lost) =>
        setState({ kind: 'closed', code: lost.code, message: ENDED }),
      )
      setState({ kind: 'open', fileId: guest.fileId })
    } catch (error) {
      setState(refusal(error))
    }
  }
  useEffect(() => {
    void open()
    return () => client.connection.guest?.close()
  }, [props.token])

  return (
    <div class="shell guest">
      <header class="topbar">
        <span class="brand">Tessera</span>
        <span class="who">Guest</span>
        <ThemeSwitch />
      </header>
      {state.kind === 'open' && (
        <div class="banner link-banner" role="status" data-testid="link-banner">
          <strong>Viewing through a link.</strong>
          <span>
            Read-only: you can look around, select parts and restore saved views; nothing can be changed.
          </span>
        </div>
      )}
      {state.kind === 'open' ? (
        <main>
          <ViewerScreen id={state.fileId} guest />
        </main>
      ) : (
        <main class="signin">
          <GuestGate state={state} onPassword={(password) => void open(password)} />
        </main>
      )}
    </div>
  )
}

function GuestGate(props: {
  state: Exclude<GuestState, { kind: 'open' }>
  onPassword: (password: string) => void
}) {
  const { state } = props
  if (state.kind === 'opening')
    return (
      <p class="hint" aria-busy="true">
        Opening the link…
      </p>
    )
  if (state.kind === 'closed') {
    return (
      <section
        class="card"
        aria-labelledby="link-closed-title"
        data-testid="link-closed"
        data-code={state.code}
      >
        <h1 id="link-closed-title">This link cannot be opened</h1>
        <Notice kind="error" message={state.message} code={state.code} />
      </section>
    )
  }
  return <PasswordForm error={state.error} onSubmit={props.onPassword} />
}

function PasswordForm(props: { error: string; onSubmit: (password: string) => void }) {
  const [password, setPassword] = useState('')
  const field = useRef<HTMLInputElement>(null)
  // Before the first paint: a guest types the password as soon as the form (or its error) shows.
  useLayoutEffect(() => field.current?.focus(), [props.error])
  return (
    <form
      class="card"
      aria-labelledby="link-password-title"
      onSubmit={(e) => {
        e.preventDefault()
        props.onSubmit(password)
      }}
    >
      <h1 id="link-password-title">This link needs a password</h1>
      <label>
        Password
        <input
          ref={field}
          type="password"
          autoComplete="off"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
      </label>
      <Notice kind="error" message={props.error} />
      <button type="submit">Open</button>
    </form>
  )
}

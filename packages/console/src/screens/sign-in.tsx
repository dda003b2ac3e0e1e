// Sign in: wrong password (401), too many attempts (429) and no free license (402) each get their
// own message; a superseded or expired session arrives here with a notice.
import { useLayoutEffect, useRef, useState } from 'preact/hooks'
import { ApiError, client } from '../api/index.ts'
import type { Identity } from '../api/session.ts'
import { Notice } from '../ui/notice.tsx'
import { useAction } from '../ui/use-action.ts'
import { ThemeSwitch } from './theme-switch.tsx'

export function SignIn(props: { notice: string; onSignedIn: (who: Identity) => void }) {
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const [kind, setKind] = useState('')
  const { busy, error, run } = useAction()
  // The screen's one task: the username field has the focus when it opens (autofocus does not
  // apply to a field rendered after the page loaded, as this one is). Before the first paint (a
  // layout effect): the field never shows without the focus, however busy the page's thread is.
  const usernameField = useRef<HTMLInputElement>(null)
  useLayoutEffect(() => usernameField.current?.focus(), [])

  async function submit(event: Event): Promise<void> {
    event.preventDefault()
    await run(async () => {
      const who = await client.session.connect(username.trim(), password).catch((e: unknown) => {
        setKind(e instanceof ApiError ? e.code : 'NETWORK')
        throw e
      })
      setPassword('')
      props.onSignedIn(who)
    })
  }

  return (
    <main class="signin">
      <form class="card" onSubmit={(e) => void submit(e)} aria-labelledby="signin-title">
        <h1 id="signin-title">Sign in to Tessera</h1>
        <Notice kind="info" message={props.notice} />
        <label>
          Username or e-mail
          <input
            ref={usernameField}
            name="username"
            autoComplete="username"
            required
            value={username}
            onInput={(e) => setUsername(e.currentTarget.value)}
          />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        <Notice kind="error" message={error} code={kind} />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="hint">You stay signed in across reloads and tabs until you sign out.</p>
        <ThemeSwitch />
      </form>
    </main>
  )
}

// The shell: sign-in gate, navigation, the session banner and the screens.
import { useEffect, useState } from 'preact/hooks'
import { client, type SessionLostCode } from './api/index.ts'
import type { Identity } from './api/session.ts'
import { linkClick, navigate, useLinkToken, useLocation } from './router.ts'
import { AccountScreen } from './screens/account.tsx'
import { FilesScreen } from './screens/files.tsx'
import { forgetFolders } from './screens/folders.ts'
import { GuestApp } from './screens/guest.tsx'
import { useEventStream } from './screens/live.ts'
import { queryFromParam } from './screens/property-values.ts'
import { SearchScreen } from './screens/search.tsx'
import { SignIn } from './screens/sign-in.tsx'
import { ThemeSwitch } from './screens/theme-switch.tsx'
import { UploadTray } from './screens/uploads.tsx'
import { ViewerScreen } from './screens/viewer.tsx'
import { WebhooksScreen } from './screens/webhooks.tsx'
import { uploads } from './uploads.ts'
import { describeError } from './util.ts'

const LOST: Record<SessionLostCode, string> = {
  SESSION_SUPERSEDED: 'You signed in somewhere else, and that session took over this one.',
  SESSION_EXPIRED: 'Your session expired.',
  SESSION_DELETED: 'Your session was ended.',
  SESSION_INVALID: 'Your session is no longer valid.',
  SESSION_MISSING: 'Your session is missing.',
  AUTH_TOKEN_EXPIRED: 'Your sign-in expired.',
  AUTH_TOKEN_INVALID: 'Your sign-in is no longer valid.',
  ACCOUNT_DISABLED: 'Your account was disabled.',
  TOKEN_REVOKED: 'Your password was changed elsewhere: sign in again.',
}

/** Only these can be fixed by taking a new session with the same sign-in. */
const RECOVERABLE = new Set<SessionLostCode>(['SESSION_SUPERSEDED', 'SESSION_EXPIRED', 'SESSION_DELETED'])

const NAV = [
  { to: '/files', label: 'Files', match: (p: string) => p === '/' || p.startsWith('/files') },
  { to: '/shared', label: 'Shared with me', match: (p: string) => p.startsWith('/shared') },
  { to: '/favourites', label: 'Favourites', match: (p: string) => p.startsWith('/favourites') },
  { to: '/search', label: 'Search', match: (p: string) => p.startsWith('/search') },
  { to: '/webhooks', label: 'Webhooks', match: (p: string) => p.startsWith('/webhooks') },
  { to: '/settings', label: 'Account', match: (p: string) => p.startsWith('/settings') },
]

export function App() {
  const linkToken = useLinkToken()
  // A link opens the viewer as a guest, without an account (and without this tab's session).
  return linkToken ? <GuestApp token={linkToken} /> : <AccountApp />
}

function AccountApp() {
  const location = useLocation()
  const [identity, setIdentity] = useState(client.session.identity)
  // On load: the session the cookies may still hold (a reload, another tab) before asking to sign in.
  const [resuming, setResuming] = useState(identity === null)
  const [lost, setLost] = useState<SessionLostCode | null>(null)
  const [banner, setBanner] = useState('')
  // Bumped when the session comes back, so screens reload what failed meanwhile.
  const [epoch, setEpoch] = useState(0)

  useEffect(() => client.connection.onSessionLost((code) => setLost(code)), [])
  // One stream per tab while the session works (reopened once the session is taken back).
  useEventStream(identity !== null && !resuming && lost === null)
  useEffect(() => {
    if (!resuming) return
    client.session
      .resume()
      .then(setIdentity, () => {
        // No session in the cookies (or it ended): the sign-in screen.
      })
      .finally(() => setResuming(false))
  }, [resuming])

  async function takeBack(): Promise<void> {
    try {
      await client.session.openSession()
      setLost(null)
      setBanner('')
      setEpoch((e) => e + 1)
    } catch (error) {
      setBanner(describeError(error))
    }
  }

  async function signOut(): Promise<void> {
    if (uploads.sending && !window.confirm('Uploads are still sending. Sign out and stop them?')) return
    // Uploads and session-only folders are this account's: the next one in this tab starts clean.
    uploads.reset()
    forgetFolders()
    await client.session.close()
    setIdentity(null)
    setLost(null)
    navigate('/', true)
  }

  if (resuming) {
    return (
      <main class="resuming" aria-busy="true">
        <p class="hint">Signing in…</p>
      </main>
    )
  }
  if (!identity || (lost && !RECOVERABLE.has(lost))) {
    return (
      <SignIn
        notice={lost ? LOST[lost] : ''}
        onSignedIn={(who) => {
          setLost(null)
          setIdentity(who)
        }}
      />
    )
  }
  return (
    <div class="shell">
      <TopBar identity={identity} path={location.path} onSignOut={() => void signOut()} />
      {lost && (
        <div class="banner" role="alert">
          <span>{LOST[lost]}</span>
          {banner && <span class="error"> {banner}</span>}
          <button type="button" onClick={() => void takeBack()}>
            Take it back
          </button>
          <button type="button" class="ghost" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      )}
      <UploadTray />
      <main key={epoch}>{route(location.path, location.query)}</main>
    </div>
  )
}

function TopBar(props: { identity: Identity; path: string; onSignOut: () => void }) {
  return (
    <header class="topbar">
      <a class="brand" href="/files" onClick={(e) => linkClick(e, '/files')}>
        Tessera
      </a>
      <nav aria-label="Main">
        {NAV.map((item) => (
          <a
            key={item.to}
            href={item.to}
            aria-current={item.match(props.path) ? 'page' : undefined}
            onClick={(e) => linkClick(e, item.to)}
          >
            {item.label}
          </a>
        ))}
      </nav>
      <span class="who" title={props.identity.email}>
        {props.identity.username}
      </span>
      <ThemeSwitch />
      <button type="button" class="ghost" onClick={props.onSignOut}>
        Sign out
      </button>
    </header>
  )
}

function route(path: string, query: URLSearchParams) {
  if (path.startsWith('/view/'))
    return <ViewerScreen id={decodeURIComponent(path.slice(6))} find={queryFromParam(query.get('find'))} />
  if (path.startsWith('/search')) return <SearchScreen find={query.get('find')} />
  if (path.startsWith('/shared')) return <FilesScreen shared />
  if (path.startsWith('/favourites')) return <FilesScreen favourites />
  if (path.startsWith('/webhooks')) return <WebhooksScreen />
  if (path.startsWith('/settings')) return <AccountScreen />
  return <FilesScreen folder={query.get('path') ?? '/'} />
}

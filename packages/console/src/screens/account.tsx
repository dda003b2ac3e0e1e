// Account: change password; for admins, accounts (create, disable/enable) and the licenses in use.
// Routes a server does not have yet answer 404 ROUTE_NOT_FOUND: shown as "not available".
import { useEffect, useState } from 'preact/hooks'
import { type AccountSummary, ApiError, client, isMissingRoute, type LicenseUsage } from '../api/index.ts'
import { GridHead } from '../ui/grid-head.tsx'
import { Notice } from '../ui/notice.tsx'
import { useAction } from '../ui/use-action.ts'
import { describeError, formatDate } from '../util.ts'

type Admin = 'loading' | 'unavailable' | 'denied' | 'ok'

export function AccountScreen() {
  const who = client.session.identity
  return (
    <section class="account" aria-label="Account">
      <h1>Account</h1>
      <p>
        Signed in as <strong>{who?.username}</strong> ({who?.email})
      </p>
      <PasswordForm />
      <AdminPanel />
    </section>
  )
}

function PasswordForm() {
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const [again, setAgain] = useState('')
  const action = useAction(passwordError)

  async function submit(e: Event): Promise<void> {
    e.preventDefault()
    action.clear()
    if (next !== again) return action.fail('The new passwords do not match.')
    if (next.length < 10) return action.fail('The new password needs at least 10 characters.')
    if (await action.run(() => client.admin.changePassword(current, next), 'Password changed.')) {
      setCurrent('')
      setNext('')
      setAgain('')
    }
  }

  return (
    <form class="card" aria-label="Change password" onSubmit={(e) => void submit(e)}>
      <h2>Change password</h2>
      <label>
        Current password
        <input
          type="password"
          autoComplete="current-password"
          required
          value={current}
          onInput={(e) => setCurrent(e.currentTarget.value)}
        />
      </label>
      <label>
        New password
        <input
          type="password"
          autoComplete="new-password"
          required
          minLength={10}
          value={next}
          onInput={(e) => setNext(e.currentTarget.value)}
        />
      </label>
      <label>
        New password again
        <input
          type="password"
          autoComplete="new-password"
          required
          value={again}
          onInput={(e) => setAgain(e.currentTarget.value)}
        />
      </label>
      <Notice kind="success" message={action.message} />
      <Notice kind="error" message={action.error} />
      <button type="submit">Change password</button>
    </form>
  )
}

function passwordError(err: unknown): string {
  if (isMissingRoute(err)) return 'Changing the password is not available on this server.'
  if (err instanceof ApiError && err.code === 'INVALID_CREDENTIALS') return 'The current password is wrong.'
  return describeError(err)
}

function AdminPanel() {
  const [state, setState] = useState<Admin>('loading')
  const [accounts, setAccounts] = useState<AccountSummary[]>([])
  const [licenses, setLicenses] = useState<LicenseUsage | null>(null)
  const action = useAction()

  const load = async () => {
    try {
      if (!(await client.admin.isAdmin())) return setState('denied')
      setAccounts(await client.admin.accounts())
      setLicenses(await client.admin.licenses().catch(() => null))
      setState('ok')
    } catch (e) {
      if (isMissingRoute(e)) setState('unavailable')
      else if (e instanceof ApiError && (e.status === 403 || e.status === 404)) setState('denied')
      else action.fail(e)
    }
  }
  useEffect(() => void load(), [])

  /** Answers whether the work succeeded: a failed create keeps what the admin typed. */
  async function act(work: () => Promise<unknown>): Promise<boolean> {
    if (!(await action.run(work))) return false
    await load()
    return true
  }

  if (state === 'denied') return null
  if (state === 'unavailable')
    return (
      <section class="card" aria-label="Administration" data-state="unavailable">
        <h2>Administration</h2>
        <p class="empty">Account administration is not available on this server.</p>
      </section>
    )
  return (
    <section class="card" aria-label="Administration">
      <h2>Accounts</h2>
      <Notice kind="error" message={action.error} />
      <AccountTable accounts={accounts} act={act} />
      <NewAccount act={act} />
      <h2>Licenses</h2>
      {licenses ? <Licenses usage={licenses} /> : <p class="hint">License use is not available.</p>}
    </section>
  )
}

type Act = (work: () => Promise<unknown>) => Promise<boolean>

function AccountTable(props: { accounts: AccountSummary[]; act: Act }) {
  return (
    <div class="table-scroll">
      <table class="grid">
        <GridHead columns={['User', 'E-mail', 'State']} />
        <tbody>
          {props.accounts.map((a) => (
            <tr key={a.id}>
              <td>
                {a.username}
                {a.isAdmin ? ' (admin)' : ''}
              </td>
              <td>{a.email}</td>
              <td>{a.disabled ? 'disabled' : 'enabled'}</td>
              <td>
                {/* The server refuses to disable the caller's own account (it would lock them out). */}
                {a.username === client.session.identity?.username ? (
                  <span class="meta">you</span>
                ) : (
                  <button
                    type="button"
                    class="ghost small"
                    onClick={() => void props.act(() => client.admin.setDisabled(a.id, !a.disabled))}
                  >
                    {a.disabled ? 'Enable' : 'Disable'}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

const NO_ACCOUNT = { username: '', email: '', password: '', admin: false }

function NewAccount(props: { act: Act }) {
  const [form, setForm] = useState(NO_ACCOUNT)
  return (
    <form
      class="inline wrap"
      aria-label="New account"
      onSubmit={(e) => {
        e.preventDefault()
        void props
          .act(() => client.admin.createAccount(form))
          .then((created) => {
            if (created) setForm(NO_ACCOUNT)
          })
      }}
    >
      <input
        aria-label="Username"
        placeholder="username"
        required
        value={form.username}
        onInput={(e) => setForm({ ...form, username: e.currentTarget.value })}
      />
      <input
        aria-label="E-mail"
        type="email"
        placeholder="e-mail"
        required
        value={form.email}
        onInput={(e) => setForm({ ...form, email: e.currentTarget.value })}
      />
      <input
        aria-label="Password"
        type="password"
        placeholder="password (10+)"
        required
        minLength={10}
        value={form.password}
        onInput={(e) => setForm({ ...form, password: e.currentTarget.value })}
      />
      <label class="check">
        <input
          type="checkbox"
          checked={form.admin}
          onChange={(e) => setForm({ ...form, admin: e.currentTarget.checked })}
        />{' '}
        admin
      </label>
      <button type="submit">Create account</button>
    </form>
  )
}

function Licenses(props: { usage: LicenseUsage }) {
  const u = props.usage
  return (
    <>
      <p>
        {u.inUse} in use of {u.total}
      </p>
      <ul class="items">
        {u.sessions.map((s) => (
          <li key={`${s.username} ${s.created}`}>
            {s.username}{' '}
            <span class="meta">
              since {formatDate(s.created)}, valid until {formatDate(s.validUntil)}
            </span>
          </li>
        ))}
      </ul>
    </>
  )
}

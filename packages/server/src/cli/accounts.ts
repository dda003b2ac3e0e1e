// `tessera-server accounts …`: accounts in the database, for operators (the admin API does the
// same over HTTP). A password is never an argument: it would be in the shell history and in `ps`.
import { parseArgs } from 'node:util'
import type { Config } from '../platform/config.ts'
import { out, UsageError, withContext } from './common.ts'

const accountsModule = () => import('../modules/accounts/index.ts')
const sessionsModule = () => import('../modules/sessions/index.ts')

export const ACCOUNTS_HELP = `Usage: tessera-server accounts <action>     (also: tessera accounts, with @tessera/cli)

  create --email E --username U [--admin]
                         create an account; its password is asked twice on a terminal, else read
                         from the first line of stdin (never an argument)
  list                   every account: id, username, e-mail, admin or user, enabled or disabled
  disable ACCOUNT [--enable]
                         disable (its session ends at once, its license is free) or re-enable
  passwd ACCOUNT         set a password (asked twice, or the first line of stdin)
  set-email ACCOUNT EMAIL
ACCOUNT is an id, a username or an e-mail. These open the database: run them where the server runs
(same TESSERA_* variables); over HTTP, an admin uses /admin/accounts (docs/api.md).`

export async function accounts(config: Config, args: string[]): Promise<void> {
  const [action, ...rest] = args
  const { createAccount, findAccountByLogin, listAccounts } = await accountsModule()
  if (action === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: {
        email: { type: 'string' },
        username: { type: 'string' },
        admin: { type: 'boolean', default: false },
      },
    })
    if (!values.email || !values.username) {
      throw new UsageError('accounts create needs --email and --username (the password is asked)')
    }
    // Asked (or read from stdin) before the database opens: a typo does not leave it open.
    const password = await readNewPassword()
    // The record as the API shows it (the revocation time is internal).
    const { tokensValidAfter: _internal, ...account } = await withContext(config, (ctx) =>
      createAccount(ctx, {
        email: values.email ?? '',
        username: values.username ?? '',
        password,
        admin: values.admin,
      }),
    )
    out(JSON.stringify(account))
    return
  }
  if (action === 'list') {
    const list = await withContext(config, (ctx) => listAccounts(ctx))
    for (const a of list) {
      out(
        [a.id, a.username, a.email, a.isAdmin ? 'admin' : 'user', a.disabled ? 'disabled' : 'enabled'].join(
          '\t',
        ),
      )
    }
    return
  }
  if (action === 'disable') {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { enable: { type: 'boolean', default: false } },
    })
    const key = positionals[0]
    if (!key) throw new UsageError('accounts disable needs an account id, username or e-mail')
    await withContext(config, async (ctx) => {
      const account = await findAccountByLogin(ctx, key)
      if (!account) throw new UsageError(`no account ${key}`)
      const { setAccountDisabled } = await sessionsModule()
      await setAccountDisabled(ctx, account.id, !values.enable)
      out(`${account.username} ${values.enable ? 'enabled' : 'disabled'}`)
    })
    return
  }
  if (action === 'passwd') return passwd(config, rest)
  if (action === 'set-email') return setEmail(config, rest)
  throw new UsageError(`accounts needs create, list, disable, passwd or set-email\n\n${ACCOUNTS_HELP}`)
}

/** The first line of a stream (a password piped in), without its line break; at most 4 KiB. */
async function readLine(stream: NodeJS.ReadableStream): Promise<string> {
  let text = ''
  for await (const chunk of stream) {
    text += String(chunk)
    const end = text.indexOf('\n')
    if (end >= 0) return text.slice(0, end).replace(/\r$/, '')
    if (text.length > 4096) throw new UsageError('the password line is longer than 4 KiB')
  }
  return text.replace(/\r$/, '')
}

/** A password never comes as an argument: it would be in the shell history and in `ps`. */
async function readNewPassword(): Promise<string> {
  if (!process.stdin.isTTY) return readLine(process.stdin)
  const { default: passwordPrompt } = await import('@inquirer/password')
  const first = await passwordPrompt({ message: 'New password:', mask: true })
  const again = await passwordPrompt({ message: 'Repeat it:', mask: true })
  if (first !== again) throw new UsageError('the passwords differ')
  return first
}

async function passwd(config: Config, args: string[]): Promise<void> {
  const [key, extra] = args
  if (!key || extra !== undefined)
    throw new UsageError('accounts passwd needs one account id, username or e-mail')
  const { findAccountByLogin, setPassword } = await accountsModule()
  await withContext(config, async (ctx) => {
    const account = await findAccountByLogin(ctx, key)
    if (!account) throw new UsageError(`no account ${key}`)
    await setPassword(ctx, account.id, await readNewPassword())
    out(`${account.username}: password set`)
  })
}

async function setEmail(config: Config, args: string[]): Promise<void> {
  const [key, email, extra] = args
  if (!key || !email || extra !== undefined)
    throw new UsageError('accounts set-email needs an account and an e-mail')
  const { findAccountByLogin } = await accountsModule()
  const { setAccountEmail } = await import('../modules/admin/index.ts')
  await withContext(config, async (ctx) => {
    const account = await findAccountByLogin(ctx, key)
    if (!account) throw new UsageError(`no account ${key}`)
    const changed = await setAccountEmail(ctx, account.id, email)
    out(`${changed.username}: e-mail ${changed.email}`)
  })
}

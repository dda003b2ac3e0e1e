// What `npm run bench:live` needs on the database: n accounts (made in-process through the accounts
// module, as the CLI does), one file of the first shared with the others, and a signed-in session
// of each (through the server, as a client signs in).
import { randomBytes } from 'node:crypto'
import { loadConfig } from '../../packages/server/src/app/config.ts'
import { createContext } from '../../packages/server/src/app/server-context.ts'
import { createAccount } from '../../packages/server/src/modules/accounts/index.ts'
import { insertFileRow, shareFileRow } from '../../packages/server/test/support/file-rows.ts'

const PASSWORD = 'benchmark password'

export interface Seeded {
  fileId: string
  /** Each participant's session headers. */
  headers: Array<Record<string, string>>
}

async function signIn(base: string, username: string): Promise<Record<string, string>> {
  const post = (url: string, headers: Record<string, string>, body?: unknown) =>
    fetch(`${base}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body ?? {}),
    })
  const login = await post('/account/login/', {}, { username, password: PASSWORD })
  const token = ((await login.json()) as { cookies: string }).cookies.split('=').slice(1).join('=')
  const session = await post('/account/session', { authorization: `Bearer ${token}` })
  const jwt = ((await session.json()) as { jwt: string }).jwt
  return { authorization: `Bearer ${token}`, 'x-service-session': jwt }
}

export async function seedLiveFile(env: NodeJS.ProcessEnv, base: string, n: number): Promise<Seeded> {
  const ctx = await createContext(loadConfig(env), { workers: false })
  const names: string[] = []
  try {
    const ids: string[] = []
    for (let i = 0; i < n; i++) {
      const username = `live${i}x${randomBytes(3).toString('hex')}`
      names.push(username)
      ids.push(
        (await createAccount(ctx, { email: `${username}@example.com`, username, password: PASSWORD })).id,
      )
    }
    const [owner = '', ...others] = ids
    // The file's row as the server's tests write it (no upload: the bench needs only its access).
    const fileId = await insertFileRow({ ctx }, owner, { name: 'live.glb' })
    for (const id of others) await shareFileRow({ ctx }, fileId, id, 'viewer')
    const headers: Array<Record<string, string>> = []
    for (const name of names) headers.push(await signIn(base, name))
    return { fileId, headers }
  } finally {
    await ctx.db.close()
  }
}

// A client of a running `tessera` over real HTTP: an account made with the CLI, login, a session,
// uploads, attribute writes, downloads. For tests that run the binary (backup, scale-out).
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { multipart } from './files.ts'
import { runCli } from './process.ts'

export const CLIENT_PASSWORD = 'a long password for tests'

export interface Client {
  username: string
  accountId: string
  headers: Record<string, string>
}

export async function createUser(
  env: Record<string, string>,
  prefix = 'u',
): Promise<{ id: string; username: string }> {
  const username = `${prefix}${Math.random().toString(36).slice(2, 10)}`
  const args = ['accounts', 'create', '--email', `${username}@example.com`, '--username', username]
  const created = await runCli(args, env, `${CLIENT_PASSWORD}\n`)
  assert.equal(created.code, 0, created.stderr)
  return { id: (JSON.parse(created.stdout) as { id: string }).id, username }
}

/** Logs in and opens a session (a license) at `baseUrl`. */
export async function signIn(baseUrl: string, user: { id: string; username: string }): Promise<Client> {
  const login = await fetch(`${baseUrl}/account/login/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: user.username, password: CLIENT_PASSWORD }),
  })
  const loginText = await login.text()
  assert.equal(login.status, 200, loginText)
  const authToken = (JSON.parse(loginText) as { cookies: string }).cookies.split('=').slice(1).join('=')
  const session = await fetch(`${baseUrl}/account/session`, {
    method: 'POST',
    headers: { authorization: `Bearer ${authToken}` },
  })
  const sessionText = await session.text()
  assert.equal(session.status, 200, sessionText)
  const sessionToken = (JSON.parse(sessionText) as { jwt: string }).jwt
  return {
    username: user.username,
    accountId: user.id,
    headers: { authorization: `Bearer ${authToken}`, 'x-service-session': sessionToken },
  }
}

export async function registerHook(
  baseUrl: string,
  client: Client,
  event: string,
  url: string,
): Promise<string> {
  const res = await fetch(`${baseUrl}/webhook/`, {
    method: 'PUT',
    headers: { ...client.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ event, url, secretToken: 'k7Qx-9vR2mWp4ZtL8bNc' }),
  })
  const text = await res.text()
  assert.equal(res.status, 200, text)
  return (JSON.parse(text) as { data: { id: string } }).data.id
}

/** POST /file/upload/: answers the response (status and body) without asserting. */
export async function upload(
  baseUrl: string,
  client: Client,
  name: string,
  data: Buffer,
): Promise<{ status: number; id: string | null }> {
  const form = multipart([{ name: 'file', filename: name, data }])
  const res = await fetch(`${baseUrl}/file/upload/`, {
    method: 'POST',
    headers: { ...client.headers, 'content-type': form.contentType },
    body: form.body,
  })
  const text = await res.text()
  const id = res.status === 200 ? (JSON.parse(text) as { file: { _id: string } }).file._id : null
  return { status: res.status, id }
}

export async function writeAttributes(
  baseUrl: string,
  client: Client,
  fileId: string,
  attributes: Record<string, Record<string, unknown>>,
): Promise<number> {
  const res = await fetch(`${baseUrl}/scene/attributes`, {
    method: 'POST',
    headers: { ...client.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ file: fileId, nodeIdToAttributes: attributes }),
  })
  await res.arrayBuffer()
  return res.status
}

/** The sha256 of GET /file/:id/download, or the status when it is not 200. */
export async function downloadSha256(baseUrl: string, client: Client, fileId: string): Promise<string> {
  const res = await fetch(`${baseUrl}/file/${fileId}/download`, { headers: client.headers })
  const body = Buffer.from(await res.arrayBuffer())
  if (res.status !== 200) return `status ${res.status}`
  return createHash('sha256').update(body).digest('hex')
}

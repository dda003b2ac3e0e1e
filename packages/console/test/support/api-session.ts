// The HTTP API as a plain client drives it, for browser tests that prepare data or read what was
// stored: login, a session (it takes a license, and supersedes the same account's other session, so
// use an account no browser page is signed in as), JSON calls and a multipart upload (and its wait
// for the conversion).
import assert from 'node:assert/strict'

export interface ApiSession {
  call<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T>
  upload(name: string, bytes: Uint8Array, parent?: string): Promise<{ _id: string; state: string }>
  /** Uploads, then waits (up to 2 minutes) until the conversion made the file ready. */
  uploadReady(name: string, bytes: Uint8Array, parent?: string): Promise<{ _id: string; state: string }>
}

export async function apiSession(baseUrl: string, username: string, password: string): Promise<ApiSession> {
  const login = await fetch(`${baseUrl}/account/login/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  })
  assert.equal(login.status, 200, await login.clone().text())
  const auth = ((await login.json()) as { cookies: string }).cookies.split('=').slice(1).join('=')
  const opened = await fetch(`${baseUrl}/account/session`, {
    method: 'POST',
    headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
  })
  assert.equal(opened.status, 200, await opened.clone().text())
  const headers = {
    authorization: `Bearer ${auth}`,
    'x-service-session': ((await opened.json()) as { jwt: string }).jwt,
  }

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`)
    return JSON.parse(text) as T
  }

  async function upload(name: string, bytes: Uint8Array, parent = '/') {
    const form = new FormData()
    form.append('parent', parent)
    form.append('file', new Blob([Buffer.from(bytes)]), name)
    const res = await fetch(`${baseUrl}/file/upload/`, { method: 'POST', headers, body: form })
    const text = await res.text()
    assert.equal(res.status, 200, text)
    return (JSON.parse(text) as { file: { _id: string; state: string } }).file
  }

  async function uploadReady(name: string, bytes: Uint8Array, parent = '/') {
    const file = await upload(name, bytes, parent)
    const deadline = Date.now() + 120_000
    while ((await call<{ file: { state: string } }>('GET', `/file/${file._id}`)).file.state !== 'ready') {
      assert.ok(Date.now() < deadline, `the conversion of ${name} did not finish`)
      await new Promise((r) => setTimeout(r, 300))
    }
    return { ...file, state: 'ready' }
  }

  return { call, upload, uploadReady }
}

// Helpers that drive the API the way a client does.
import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { createAccount } from '../../src/modules/accounts/index.ts'

let counter = 0
export const PASSWORD = 'correct horse battery staple'

export async function newAccount(app: FastifyInstance, prefix = 'user') {
  counter += 1
  const username = `${prefix}${counter}${Math.random().toString(36).slice(2, 8)}`
  const account = await createAccount(app.ctx, {
    email: `${username}@example.com`,
    username,
    password: PASSWORD,
  })
  return { ...account, password: PASSWORD }
}

export async function login(app: FastifyInstance, username: string, password = PASSWORD): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/account/login/', payload: { username, password } })
  assert.equal(res.statusCode, 200, res.body)
  return (res.json() as { cookies: string }).cookies.split('=').slice(1).join('=')
}

export async function openSession(app: FastifyInstance, authToken: string): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/account/session',
    headers: { authorization: `Bearer ${authToken}`, 'content-type': 'application/json' },
  })
  assert.equal(res.statusCode, 200, res.body)
  return (res.json() as { jwt: string }).jwt
}

/** A logged-in account with a session: headers ready for authenticated calls. */
export async function signedIn(app: FastifyInstance, prefix = 'user') {
  const account = await newAccount(app, prefix)
  const authToken = await login(app, account.username)
  const sessionToken = await openSession(app, authToken)
  return {
    account,
    authToken,
    sessionToken,
    headers: { authorization: `Bearer ${authToken}`, 'x-service-session': sessionToken },
  }
}

export function problemOf(res: LightMyRequestResponse) {
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/)
  return res.json() as { success: false; status: number; code: string; detail: string; title: string }
}

/** A guest of `fileId`: the owner makes the file's link and a visitor opens it (the guest's headers). */
export async function linkGuest(
  app: FastifyInstance,
  ownerHeaders: Record<string, string>,
  fileId: string,
): Promise<{ 'x-link-session': string }> {
  const link = await app.inject({
    method: 'POST',
    url: `/file/${fileId}/link`,
    headers: ownerHeaders,
    payload: {},
  })
  assert.equal(link.statusCode, 200, link.body)
  const opened = await app.inject({
    method: 'POST',
    url: '/links/open',
    payload: { token: link.json().token },
  })
  assert.equal(opened.statusCode, 200, opened.body)
  return { 'x-link-session': opened.json().linkSession as string }
}

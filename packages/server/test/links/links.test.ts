// Share by link (docs/api.md, "Links"), every dialect: create, read, rotate and revoke by the owner
// only (editor 403, stranger 404), idempotent create, the token answered once; `shareToken` and
// `isLink` per caller; opening with expiry and password; what a guest reads (its file only, items
// whose read lists allow everyone); rotating, revoking and deleting the file end link sessions at
// once and are heard by `onLinkRevoked`; the rate limits of opening and of link sessions.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import {
  isLinkOpen,
  type LinkRevocation,
  type LinkSession,
  onLinkRevoked,
  resolveLinkSession,
} from '../../src/modules/links/index.ts'
import { setAccountDisabled } from '../../src/modules/sessions/index.ts'
import { problemOf, signedIn } from '../support/api.ts'
import { uploadFile } from '../support/files.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { sleep, until } from '../support/receiver.ts'

type User = Awaited<ReturnType<typeof signedIn>>
interface Created {
  link: { id: string; fileId: string; hasPassword: boolean; expiresAt: string | null; expired: boolean }
  token: string | null
}

function call(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  headers = {},
  payload?: object,
) {
  return app.inject({ method, url, headers, ...(payload ? { payload } : {}) })
}

async function createLink(
  app: FastifyInstance,
  u: User,
  fileId: string,
  body: object = {},
): Promise<Created> {
  const res = await call(app, 'POST', `/file/${fileId}/link`, u.headers, body)
  assert.equal(res.statusCode, 200, res.body)
  return res.json() as Created
}

async function open(app: FastifyInstance, token: string, password?: string, ip = '127.0.0.1') {
  return app.inject({
    method: 'POST',
    url: '/links/open',
    payload: password === undefined ? { token } : { token, password },
    remoteAddress: ip,
  })
}

let guests = 0
/** A guest from an address of its own (the test app allows few opens per address). */
async function guestOf(app: FastifyInstance, token: string, password?: string) {
  guests++
  const res = await open(app, token, password, `10.1.${guests >> 8}.${guests & 255}`)
  assert.equal(res.statusCode, 200, res.body)
  const body = res.json() as { linkSession: string; fileId: string }
  return { ...body, headers: { 'x-link-session': body.linkSession } }
}

for (const dialect of dialects()) {
  describe(`share by link on ${dialect.name}`, () => {
    let t: TestApp
    let owner: User
    let editor: User
    let viewer: User
    let stranger: User

    /** A fresh file of the owner's, shared with the editor and the viewer. */
    async function sharedFile(name: string) {
      const file = await uploadFile(t.app, owner.headers, { name })
      for (const [who, role] of [
        [editor, 'editor'],
        [viewer, 'viewer'],
      ] as const) {
        const res = await call(t.app, 'POST', `/file/${file._id}/share`, owner.headers, {
          email: who.account.email,
          role,
        })
        assert.equal(res.statusCode, 200, res.body)
      }
      return file
    }

    before(async () => {
      t = await startApp(dialect, { licenses: 100, linkOpenRate: 5, linkSessionRate: 40 })
      owner = await signedIn(t.app)
      editor = await signedIn(t.app)
      viewer = await signedIn(t.app)
      stranger = await signedIn(t.app)
    })
    after(() => t.close())

    test('only the owner creates, reads, rotates and revokes a link', async () => {
      const file = await sharedFile('owner-only.stl')
      for (const [who, status] of [
        [editor, 403],
        [viewer, 403],
        [stranger, 404],
      ] as const) {
        for (const [method, url] of [
          ['POST', `/file/${file._id}/link`],
          ['GET', `/file/${file._id}/link`],
          ['POST', `/file/${file._id}/link/rotate`],
          ['DELETE', `/file/${file._id}/link`],
        ] as const) {
          const res = await call(t.app, method, url, who.headers, method === 'POST' ? {} : undefined)
          assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`)
        }
      }
      assert.equal(
        problemOf(await call(t.app, 'GET', `/file/${file._id}/link`, owner.headers)).code,
        'LINK_NOT_FOUND',
      )
      const created = await createLink(t.app, owner, file._id, { password: 'open sesame' })
      assert.match(created.token ?? '', /^[A-Za-z0-9_-]{43}$/)
      assert.equal(created.link.hasPassword, true)
      const again = await call(t.app, 'POST', `/file/${file._id}/link`, owner.headers, {})
      assert.equal(problemOf(again).code, 'LINK_EXISTS')
      const read = await call(t.app, 'GET', `/file/${file._id}/link`, owner.headers)
      assert.equal(read.statusCode, 200)
      assert.deepEqual(read.json().link, created.link)
      assert.ok(!read.body.includes(created.token ?? '?'), 'the token is never answered again')
      const rotated = await call(t.app, 'POST', `/file/${file._id}/link/rotate`, owner.headers, {})
      assert.equal(rotated.statusCode, 200, rotated.body)
      assert.notEqual(rotated.json().link.id, created.link.id)
      assert.notEqual(rotated.json().token, created.token)
      assert.equal(rotated.json().link.hasPassword, true, 'rotating keeps the password')
      assert.equal((await call(t.app, 'DELETE', `/file/${file._id}/link`, owner.headers)).statusCode, 200)
      assert.equal((await call(t.app, 'DELETE', `/file/${file._id}/link`, owner.headers)).statusCode, 404)
    })

    test('create honours Idempotency-Key; a replay answers the link without its token', async () => {
      const file = await sharedFile('idempotent.stl')
      const headers = { ...owner.headers, 'idempotency-key': `link-${file._id}` }
      const first = await call(t.app, 'POST', `/file/${file._id}/link`, headers, { password: null })
      assert.equal(first.statusCode, 200, first.body)
      const replay = await call(t.app, 'POST', `/file/${file._id}/link`, headers, { password: null })
      assert.equal(replay.statusCode, 200, replay.body)
      assert.equal(replay.headers['idempotent-replayed'], 'true')
      assert.deepEqual(replay.json().link, first.json().link)
      assert.equal(replay.json().token, null)
      assert.equal(typeof first.json().token, 'string')
      const bad = await call(t.app, 'POST', `/file/${file._id}/link`, owner.headers, {
        expiresAt: '2001-01-01T00:00:00Z',
      })
      assert.equal(problemOf(bad).code, 'VALIDATION_FAILED')
    })

    test('shareToken is the link id for the owner only; isLink says a guest reads through a link', async () => {
      const file = await sharedFile('share-token.stl')
      const { link, token } = await createLink(t.app, owner, file._id)
      const seen = async (headers: Record<string, string>) => {
        const res = await call(t.app, 'GET', `/file/${file._id}`, headers)
        assert.equal(res.statusCode, 200, res.body)
        return res.json().file as {
          shareToken: string
          isLink: boolean
          role: string
          capabilities: object
          roles: unknown[]
        }
      }
      // Twice each: kept views must not carry one caller's fields to the next.
      for (let round = 0; round < 2; round++) {
        assert.equal((await seen(owner.headers)).shareToken, link.id)
        assert.equal((await seen(editor.headers)).shareToken, '')
        assert.equal((await seen(viewer.headers)).shareToken, '')
        assert.equal((await seen(owner.headers)).isLink, false)
      }
      const listed = (await call(t.app, 'GET', '/file/dir/private/', owner.headers)).json().files as {
        _id: string
        shareToken: string
      }[]
      assert.equal(listed.find((f) => f._id === file._id)?.shareToken, link.id)
      const shared = (await call(t.app, 'GET', '/file/dir/shared/', viewer.headers)).json().files as {
        _id: string
        shareToken: string
      }[]
      assert.equal(shared.find((f) => f._id === file._id)?.shareToken, '')
      const guest = await guestOf(t.app, token ?? '')
      const asGuest = await seen(guest.headers)
      assert.deepEqual([asGuest.shareToken, asGuest.isLink, asGuest.role], ['', true, 'viewer'])
      assert.deepEqual(asGuest.roles, [], 'a guest does not learn whom the file is shared with')
      assert.equal((await seen(owner.headers)).roles.length, 2)
      assert.ok(!Object.values(asGuest.capabilities).slice(1).some(Boolean), 'a guest may only read')
      assert.equal((await seen(viewer.headers)).isLink, false)
      // Events go to every reader: their record never carries the link, even the owner's own.
      const later = await sharedFile('event-payload.stl')
      await createLink(t.app, owner, later._id)
      const reshare = await call(t.app, 'POST', `/file/${later._id}/share`, owner.headers, {
        email: stranger.account.email,
        role: 'viewer',
      })
      assert.equal(reshare.json().file.shareToken.length, 24, 'the owner’s answer shows the link id')
      const events = await t.db.kysely
        .selectFrom('events')
        .select(['event', 'data'])
        .where('file_id', '=', later._id)
        .execute()
      const payloads = events.filter((e) => e.event === 'file_shared').map((e) => JSON.parse(e.data))
      assert.equal(payloads.length, 3)
      for (const data of payloads) assert.deepEqual([data.shareToken, data.isLink], ['', false])
      await call(t.app, 'DELETE', `/file/${file._id}/link`, owner.headers)
      assert.equal((await seen(owner.headers)).shareToken, '')
    })

    test('opening: unknown 404, password 401/403, expired 410', async () => {
      const file = await sharedFile('opening.stl')
      assert.equal(problemOf(await open(t.app, 'not-a-token', undefined, '10.0.0.1')).code, 'LINK_NOT_FOUND')
      const { token } = await createLink(t.app, owner, file._id, { password: 'open sesame' })
      assert.equal(
        problemOf(await open(t.app, token ?? '', undefined, '10.0.0.1')).code,
        'LINK_PASSWORD_REQUIRED',
      )
      assert.equal(
        problemOf(await open(t.app, token ?? '', 'wrong!', '10.0.0.1')).code,
        'LINK_PASSWORD_WRONG',
      )
      const opened = await open(t.app, token ?? '', 'open sesame', '10.0.0.2')
      assert.equal(opened.statusCode, 200, opened.body)
      assert.equal(opened.json().fileId, file._id)
      assert.equal(opened.json().allowLivePublicMeetings, false)
      const soon = await sharedFile('expiring.stl')
      const expiring = await createLink(t.app, owner, soon._id, {
        expiresAt: new Date(Date.now() + 1500).toISOString(),
      })
      const guest = await guestOf(t.app, expiring.token ?? '')
      assert.equal((await call(t.app, 'GET', `/file/${soon._id}`, guest.headers)).statusCode, 200)
      assert.ok(
        Date.parse(
          guest.fileId
            ? (await open(t.app, expiring.token ?? '', undefined, '10.0.0.3')).json().expiresAt
            : '',
        ) <= Date.parse(expiring.link.expiresAt ?? ''),
        'a session never outlives its link',
      )
      await sleep(1600)
      assert.equal(
        problemOf(await open(t.app, expiring.token ?? '', undefined, '10.0.0.3')).code,
        'LINK_EXPIRED',
      )
      assert.equal(problemOf(await call(t.app, 'GET', `/file/${soon._id}`, guest.headers)).status, 401)
      assert.equal(
        (await call(t.app, 'GET', `/file/${soon._id}/link`, owner.headers)).json().link.expired,
        true,
      )
    })

    test('a guest reads its file and the items everyone may read; nothing else', async () => {
      const file = await sharedFile('guest-reads.stl')
      const other = await sharedFile('other.stl')
      const { token } = await createLink(t.app, owner, file._id)
      const guest = await guestOf(t.app, token ?? '')
      for (const readPermissions of [[], ['*'], [editor.account.email]]) {
        const res = await call(t.app, 'POST', '/annotation/create/', owner.headers, {
          file: file._id,
          name: `read ${readPermissions.join(',') || 'all'}`,
          readPermissions,
        })
        assert.equal(res.statusCode, 200, res.body)
      }
      // Lists naming e-mails keep only "*" for a guest; an empty entry never admits one.
      const named = await call(t.app, 'POST', '/annotation/create/', owner.headers, {
        file: file._id,
        name: 'read *+',
        readPermissions: ['*', editor.account.email],
        permissions: { readDiscussion: [editor.account.email] },
      })
      assert.equal(named.statusCode, 200, named.body)
      const blank = await call(t.app, 'POST', '/annotation/create/', owner.headers, {
        file: file._id,
        name: 'read blank',
        readPermissions: [' '],
      })
      assert.ok([200, 400].includes(blank.statusCode), blank.body)
      const listed = await call(t.app, 'GET', `/annotation/?file=${file._id}`, guest.headers)
      assert.equal(listed.statusCode, 200, listed.body)
      const annotations = listed.json().annotations as {
        name: string
        readPermissions: string[]
        permissions: Record<string, unknown>
      }[]
      assert.deepEqual(annotations.map((a) => a.name).sort(), ['read *', 'read *+', 'read all'])
      const shown = annotations.find((a) => a.name === 'read *+')
      assert.deepEqual(shown?.readPermissions, ['*'])
      assert.ok(!JSON.stringify(listed.json()).includes(editor.account.email), 'no e-mail of a sharee')
      // Nor in the file record: whom else it is shared with, or who starred it.
      await call(t.app, 'PUT', `/file/${file._id}/favourite`, editor.headers)
      const record = (await call(t.app, 'GET', `/file/${file._id}`, guest.headers)).json().file
      assert.deepEqual(record.favoritedBy, [])
      assert.deepEqual(record.roles, [])
      assert.equal(
        (await call(t.app, 'GET', `/file/configuration/?file=${file._id}`, guest.headers)).statusCode,
        200,
      )
      assert.equal(
        (await call(t.app, 'GET', `/scene/attributes?file=${file._id}`, guest.headers)).statusCode,
        200,
      )
      assert.equal((await call(t.app, 'GET', `/file/${other._id}`, guest.headers)).statusCode, 404)
      assert.equal(
        (await call(t.app, 'GET', `/annotation/?file=${other._id}`, guest.headers)).statusCode,
        404,
      )
      const write = await call(t.app, 'POST', '/annotation/create/', guest.headers, {
        file: file._id,
        name: 'x',
      })
      assert.equal(problemOf(write).code, 'LINK_READ_ONLY')
      assert.equal(
        problemOf(await call(t.app, 'GET', '/file/dir/private/', guest.headers)).code,
        'LINK_NOT_ALLOWED',
      )
      assert.equal(
        problemOf(await call(t.app, 'GET', `/file/${file._id}/download`, guest.headers)).code,
        'LINK_NOT_ALLOWED',
      )
      // A guest's header wins over an account's credentials sent beside it: still read-only.
      const both = await call(t.app, 'DELETE', `/file/${file._id}`, { ...owner.headers, ...guest.headers })
      assert.equal(problemOf(both).code, 'LINK_READ_ONLY')
      const forged = await call(t.app, 'GET', `/file/${file._id}`, { 'x-link-session': owner.authToken })
      assert.equal(problemOf(forged).code, 'LINK_SESSION_INVALID')
      const renewed = await call(t.app, 'GET', '/links/session', guest.headers)
      assert.equal(renewed.statusCode, 200, renewed.body)
      const fresh = { 'x-link-session': renewed.json().linkSession as string }
      assert.equal((await call(t.app, 'GET', `/file/${file._id}`, fresh)).statusCode, 200)
      assert.equal(
        problemOf(await call(t.app, 'GET', '/links/session', owner.headers)).code,
        'LINK_SESSION_MISSING',
      )
    })

    test('rotating, revoking and deleting the file end link sessions at once, heard by onLinkRevoked', async () => {
      const heard: LinkRevocation[] = []
      const stop = onLinkRevoked({ db: t.db, log: t.app.log }, (revocation) => heard.push(revocation))
      try {
        const file = await sharedFile('revoked.stl')
        const first = await createLink(t.app, owner, file._id)
        const guest = await guestOf(t.app, first.token ?? '')
        const rotated = await call(t.app, 'POST', `/file/${file._id}/link/rotate`, owner.headers, {})
        assert.equal(
          problemOf(await call(t.app, 'GET', `/file/${file._id}`, guest.headers)).code,
          'LINK_SESSION_ENDED',
        )
        assert.equal(
          problemOf(await open(t.app, first.token ?? '', undefined, '10.0.1.1')).code,
          'LINK_NOT_FOUND',
        )
        await until('the rotation heard', () => heard.some((r) => r.linkId === first.link.id), 1000)
        const second = await guestOf(t.app, rotated.json().token)
        assert.equal((await call(t.app, 'DELETE', `/file/${file._id}/link`, owner.headers)).statusCode, 200)
        assert.equal(
          problemOf(await call(t.app, 'GET', `/file/${file._id}`, second.headers)).code,
          'LINK_SESSION_ENDED',
        )
        await until(
          'the revocation heard',
          () => heard.some((r) => r.linkId === rotated.json().link.id),
          1000,
        )
        const third = await createLink(t.app, owner, file._id)
        const guest3 = await guestOf(t.app, third.token ?? '')
        assert.equal((await call(t.app, 'DELETE', `/file/${file._id}`, owner.headers)).statusCode, 200)
        assert.equal(problemOf(await call(t.app, 'GET', `/file/${file._id}`, guest3.headers)).status, 401)
        await until('the deletion heard', () => heard.some((r) => r.linkId === third.link.id), 1000)
      } finally {
        await stop()
      }
    })

    test('resolveLinkSession and isLinkOpen: what other layers (live sessions) check a guest with', async () => {
      const file = await sharedFile('for-live.stl')
      const { link, token } = await createLink(t.app, owner, file._id)
      const guest = await guestOf(t.app, token ?? '')
      const { ctx } = t.app
      const session: LinkSession = await resolveLinkSession(ctx, guest.linkSession)
      assert.deepEqual(
        [session.linkId, session.fileId, session.allowLivePublicMeetings],
        [link.id, file._id, false],
      )
      assert.ok(session.expiresAt > Date.now())
      assert.equal(await isLinkOpen(ctx, link.id), true)
      await assert.rejects(resolveLinkSession(ctx, `${guest.linkSession}x`), { code: 'LINK_SESSION_INVALID' })
      await call(t.app, 'DELETE', `/file/${file._id}/link`, owner.headers)
      await assert.rejects(resolveLinkSession(ctx, guest.linkSession), { code: 'LINK_SESSION_ENDED' })
      assert.equal(await isLinkOpen(ctx, link.id), false)
    })

    test("a disabled owner's links stop working; enabled again, they work again", async () => {
      const lender = await signedIn(t.app)
      const file = await uploadFile(t.app, lender.headers, { name: 'lent.stl' })
      const { token } = await createLink(t.app, lender, file._id)
      const guest = await guestOf(t.app, token ?? '')
      const linkId = (await call(t.app, 'GET', `/file/${file._id}/link`, lender.headers)).json().link.id
      await setAccountDisabled(t.app.ctx, lender.account.id, true)
      const refused = await call(t.app, 'GET', `/file/${file._id}`, guest.headers)
      assert.equal(problemOf(refused).code, 'LINK_SESSION_ENDED')
      assert.equal(problemOf(await open(t.app, token ?? '')).code, 'LINK_NOT_FOUND')
      assert.equal(await isLinkOpen(t.app.ctx, linkId), false)
      await setAccountDisabled(t.app.ctx, lender.account.id, false)
      assert.equal((await call(t.app, 'GET', `/file/${file._id}`, guest.headers)).statusCode, 200)
    })

    test('rate limits: opening per client address, requests per link (429 with RateLimit fields)', async () => {
      const file = await sharedFile('limits.stl')
      const { token } = await createLink(t.app, owner, file._id)
      for (let i = 0; i < 5; i++) {
        const res = await open(t.app, `guess-${i}`, undefined, '10.9.9.9')
        assert.equal(res.statusCode, 404)
        assert.match(String(res.headers.ratelimit), /"link-open";r=\d+/)
      }
      const refused = await open(t.app, token ?? '', undefined, '10.9.9.9')
      assert.equal(problemOf(refused).code, 'TOO_MANY_REQUESTS')
      assert.ok(Number(refused.headers['retry-after']) >= 1)
      assert.equal(
        (await open(t.app, token ?? '', undefined, '10.9.9.8')).statusCode,
        200,
        'another address opens',
      )
      const guest = await guestOf(t.app, token ?? '')
      let last = await call(t.app, 'GET', `/file/${file._id}`, guest.headers)
      for (let i = 0; i < 45 && last.statusCode === 200; i++)
        last = await call(t.app, 'GET', `/file/${file._id}`, guest.headers)
      assert.equal(problemOf(last).code, 'TOO_MANY_REQUESTS')
      assert.match(String(last.headers['ratelimit-policy']), /"link-session";q=40;w=60/)
    })
  })
}

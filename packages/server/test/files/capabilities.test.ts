// The caller's `role` and `capabilities` on every answer that shows a file: GET /file/:id, the
// own listing (both shapes), the shared-with-me listing, upload and share answers. Each capability
// is checked against what the server really does for that role, so the two cannot drift apart.
// Every dialect.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { problemOf, signedIn } from '../support/api.ts'
import { type UploadedFile, uploadFile } from '../support/files.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

type User = Awaited<ReturnType<typeof signedIn>>
type Capabilities = Record<string, boolean>
interface Viewed extends UploadedFile {
  role: string
  capabilities: Capabilities
}

const EXPECTED: Record<'owner' | 'editor' | 'viewer', Capabilities> = {
  owner: {
    read: true,
    setAttributes: true,
    annotate: true,
    saveViews: true,
    share: true,
    uploadRevision: true,
    delete: true,
  },
  editor: {
    read: true,
    setAttributes: true,
    annotate: true,
    saveViews: true,
    share: false,
    uploadRevision: false,
    delete: false,
  },
  viewer: {
    read: true,
    setAttributes: false,
    annotate: false,
    saveViews: false,
    share: false,
    uploadRevision: false,
    delete: false,
  },
}

/** One request per capability (but read and uploadRevision, checked apart): 2xx when allowed. */
function probes(t: TestApp, fileId: string) {
  const post = (u: User, url: string, payload: unknown) =>
    t.app.inject({ method: 'POST', url, headers: u.headers, payload: payload as object })
  return {
    setAttributes: (u: User) =>
      post(u, '/scene/attributes', { file: fileId, nodeIdToAttributes: { n: { a: 'x' } } }),
    annotate: (u: User) => post(u, '/annotation/create/', { file: fileId, name: 'probe' }),
    saveViews: (u: User) => post(u, '/file/configuration/', { file: fileId, name: 'probe' }),
    share: (u: User) =>
      post(u, `/file/${fileId}/share`, { email: 'nobody-at-all@example.com', role: 'viewer' }),
  }
}

for (const dialect of dialects()) {
  describe(`file role and capabilities on ${dialect.name}`, () => {
    let t: TestApp
    let owner: User
    let editor: User
    let viewer: User
    let stranger: User
    let file: Viewed

    const get = async (u: User, url: string) => {
      const res = await t.app.inject({ method: 'GET', url, headers: u.headers })
      return { status: res.statusCode, body: res.json() as Record<string, unknown>, res }
    }

    before(async () => {
      t = await startApp(dialect, { licenses: 100 })
      owner = await signedIn(t.app)
      editor = await signedIn(t.app)
      viewer = await signedIn(t.app)
      stranger = await signedIn(t.app)
      file = (await uploadFile(t.app, owner.headers, { name: 'roles.stl', parent: '/team' })) as Viewed
      for (const [who, role] of [
        [editor, 'editor'],
        [viewer, 'viewer'],
      ] as const) {
        const res = await t.app.inject({
          method: 'POST',
          url: `/file/${file._id}/share`,
          headers: owner.headers,
          payload: { email: who.account.email, role },
        })
        assert.equal(res.statusCode, 200, res.body)
        const answered = res.json().file as Viewed
        assert.equal(answered.role, 'owner', 'the share answer is the owner’s view')
        assert.deepEqual(answered.capabilities, EXPECTED.owner)
      }
    })
    after(() => t.close())

    test('the upload answer and GET /file/:id carry each caller’s role and capabilities', async () => {
      assert.equal(file.role, 'owner')
      assert.deepEqual(file.capabilities, EXPECTED.owner)
      for (const [who, role] of [
        [owner, 'owner'],
        [editor, 'editor'],
        [viewer, 'viewer'],
      ] as const) {
        const { status, body } = await get(who, `/file/${file._id}`)
        assert.equal(status, 200)
        const seen = body.file as Viewed
        assert.equal(seen.role, role)
        assert.deepEqual(seen.capabilities, EXPECTED[role], role)
      }
      // Twice for the viewer: the kept view text must not carry one caller's role to the next.
      const again = await get(viewer, `/file/${file._id}`)
      assert.equal((again.body.file as Viewed).role, 'viewer')
      assert.equal(((await get(owner, `/file/${file._id}`)).body.file as Viewed).role, 'owner')
    })

    test('own listings (spec shape and ?path=) and the shared listing carry them on every item', async () => {
      for (const url of ['/file/dir/private/team', '/file/dir/private/?path=/team']) {
        // Twice: the first answer builds and keeps the row texts, the second splices kept ones.
        for (let round = 0; round < 2; round++) {
          const listed = (await get(owner, url)).body.files as Viewed[]
          assert.equal(listed.length, 1, url)
          assert.equal(listed[0]?.role, 'owner', url)
          assert.deepEqual(listed[0]?.capabilities, EXPECTED.owner, url)
        }
      }
      for (const [who, role] of [
        [editor, 'editor'],
        [viewer, 'viewer'],
      ] as const) {
        const shared = (await get(who, '/file/dir/shared/')).body.files as Viewed[]
        const item = shared.find((f) => f._id === file._id)
        assert.equal(item?.role, role)
        assert.deepEqual(item?.capabilities, EXPECTED[role])
      }
    })

    test('each capability says what the server does: allowed answers 2xx, refused 403', async () => {
      const calls = probes(t, file._id)
      for (const [who, role] of [
        [viewer, 'viewer'],
        [editor, 'editor'],
      ] as const) {
        for (const [name, call] of Object.entries(calls)) {
          const res = await call(who)
          if (EXPECTED[role][name]) assert.ok(res.statusCode < 300, `${role} ${name}: ${res.body}`)
          else {
            assert.equal(res.statusCode, 403, `${role} ${name}: ${res.body}`)
            assert.equal(problemOf(res).code, 'FORBIDDEN')
          }
        }
        const del = await t.app.inject({ method: 'DELETE', url: `/file/${file._id}`, headers: who.headers })
        assert.equal(del.statusCode, 403, `${role} delete`)
      }
      // The owner may do each (share: an unknown e-mail is 404, past the owner check).
      assert.ok((await calls.setAttributes(owner)).statusCode < 300)
      assert.ok((await calls.annotate(owner)).statusCode < 300)
      assert.equal((await calls.share(owner)).statusCode, 404)
      // uploadRevision: an upload by an editor to the same path makes a file of their own, not a revision.
      const editorUpload = (await uploadFile(t.app, editor.headers, {
        name: 'roles.stl',
        parent: '/team',
      })) as Viewed
      assert.notEqual(editorUpload._id, file._id)
      const revision = (await uploadFile(t.app, owner.headers, {
        name: 'roles.stl',
        parent: '/team',
      })) as Viewed
      assert.equal(revision._id, file._id)
      assert.equal(revision.role, 'owner')
    })

    test('another account’s file still answers 404, and is in none of its listings', async () => {
      const { status, body } = await get(stranger, `/file/${file._id}`)
      assert.equal(status, 404)
      assert.equal(body.code, 'NOT_FOUND')
      assert.equal(((await get(stranger, '/file/dir/shared/')).body.files as Viewed[]).length, 0)
      assert.equal(((await get(stranger, '/file/dir/private/team')).body.files as Viewed[]).length, 0)
    })
  })
}

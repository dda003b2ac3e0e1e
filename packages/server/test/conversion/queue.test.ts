// The conversion queue on every dialect: conversions are fair between accounts (one account's queue
// of slow conversions does not hold back another account's tiny one); deleting a file or uploading
// a newer revision stops its running conversion at once and leaves nothing behind; and only a newer
// revision supersedes a conversion — a share, a revoke or an attribute write during it does not,
// and no file is ever left `queued`/`converting` without a job that will finish it.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import { CONVERSION_TEMP_PREFIX } from '../../src/modules/conversion/sweep.ts'
import { filesWithoutLiveConversion } from '../../src/modules/files/index.ts'
import { signedIn } from '../support/api.ts'
import { terrainStl } from '../support/big-models.ts'
import { uploadFile } from '../support/files.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { stlCube } from '../support/models.ts'
import { until } from '../support/receiver.ts'
import { storedKeys } from '../support/stored-keys.ts'

type User = Awaited<ReturnType<typeof signedIn>>
interface FileView {
  _id: string
  __v: number
  state: string
  progress: number
  size: number
}

/** How long a stopped conversion's process may outlive the deletion or revision (same process). */
const STOP_WITHIN_MS = 1500

/** PIDs of this process's conversion children (child.ts). */
function conversionChildren(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
  return out
    .split('\n')
    .filter((line) => /conversion[/\\]child\.(ts|js)/.test(line))
    .map((line) => Number.parseInt(line.trim(), 10))
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** This process's conversion temp folders (one per run until it is disposed). */
function conversionFolders(): string[] {
  const prefix = path.basename(CONVERSION_TEMP_PREFIX)
  return readdirSync(tmpdir()).filter((name) => name.startsWith(prefix))
}

for (const dialect of dialects()) {
  describe(`the conversion queue on ${dialect.name}`, () => {
    let t: TestApp
    let owner: User

    async function fileOf(user: User, id: string): Promise<FileView | null> {
      const res = await t.app.inject({ method: 'GET', url: `/file/${id}`, headers: user.headers })
      if (res.statusCode === 404) return null
      assert.equal(res.statusCode, 200, res.body)
      return (res.json() as { file: FileView }).file
    }

    async function stateOf(user: User, id: string): Promise<string> {
      return (await fileOf(user, id))?.state ?? 'gone'
    }

    function jobsOf(fileId: string) {
      return t.db.kysely
        .selectFrom('jobs')
        .select(['state', 'file_revision'])
        .where('file_id', '=', fileId)
        .orderBy('created_at')
        .execute()
    }

    /** Waits until `id` is converting in a child process of ours; answers its PID. */
    function convertingChild(user: User, id: string): Promise<number> {
      return until(
        `a conversion process for ${id}`,
        async () => ((await stateOf(user, id)) === 'converting' ? conversionChildren()[0] : undefined),
        120_000,
      )
    }

    /** Waits for `pid` to end; answers how long that took from `since`. */
    async function stoppedAfter(pid: number, since: number): Promise<number> {
      await until(`conversion process ${pid} to stop`, () => !alive(pid), 30_000)
      return Date.now() - since
    }

    before(async () => {
      // One slot: the unfair case is the worst with a single conversion at a time.
      t = await startApp(dialect, { conversionConcurrency: 1 }, { conversions: true })
      owner = await signedIn(t.app, 'queue')
    })
    after(() => t.close())

    test("one account's queue of slow conversions does not hold back another account's tiny one", async () => {
      const slow = await signedIn(t.app, 'busy')
      const quick = await signedIn(t.app, 'quick')
      const model = terrainStl(300_000)
      const queued: string[] = []
      for (let i = 0; i < 3; i++) {
        queued.push((await uploadFile(t.app, slow.headers, { name: `slow${i}.stl`, data: model }))._id)
      }
      const tiny = await uploadFile(t.app, quick.headers, { name: 'tiny.stl', data: stlCube('tiny') })
      // What had started (converting or done) when the tiny one came; the rest were still queued.
      const startedBefore = (await Promise.all(queued.map((id) => stateOf(slow, id)))).filter(
        (s) => s !== 'queued',
      ).length
      assert.ok(startedBefore < queued.length, 'the busy account still had conversions queued')
      await until('the tiny model ready', async () => (await stateOf(quick, tiny._id)) === 'ready', 180_000)
      const states = await Promise.all(queued.map((id) => stateOf(slow, id)))
      // With turns between accounts the tiny one runs right after those already started (first-in
      // first-out ran every one of the busy account's first).
      const readyBefore = states.filter((s) => s === 'ready').length
      assert.ok(readyBefore <= startedBefore, `the busy account's files: ${states}, ${startedBefore} started`)
      assert.ok(states.includes('queued'), `the busy account's files: ${states}`)
      for (const id of queued) {
        await until(`${id} ready`, async () => (await stateOf(slow, id)) === 'ready', 180_000)
      }
      assert.deepEqual(await filesWithoutLiveConversion(t.db.kysely), [])
    })

    test('deleting a file stops its running conversion at once and leaves nothing behind', async (ctx) => {
      const keysBefore = await storedKeys(t)
      const file = await uploadFile(t.app, owner.headers, { name: 'deleted.stl', data: terrainStl(800_000) })
      const pid = await convertingChild(owner, file._id)
      const started = Date.now()
      const res = await t.app.inject({ method: 'DELETE', url: `/file/${file._id}`, headers: owner.headers })
      assert.equal(res.statusCode, 200, res.body)
      const ms = await stoppedAfter(pid, started)
      assert.ok(ms < STOP_WITHIN_MS, `the conversion process outlived the deletion by ${ms} ms`)
      ctx.diagnostic(`conversion process gone ${ms} ms after the DELETE was sent`)
      await until('the run disposed', () => conversionFolders().length === 0, 10_000)
      assert.deepEqual(await jobsOf(file._id), [])
      assert.deepEqual(await storedKeys(t), keysBefore)
    })

    test('a newer revision stops the running conversion; the new revision converts', async (ctx) => {
      const first = await uploadFile(t.app, owner.headers, { name: 'revised.stl', data: terrainStl(800_000) })
      const pid = await convertingChild(owner, first._id)
      const started = Date.now()
      const tiny = stlCube('revised')
      const second = await uploadFile(t.app, owner.headers, { name: 'revised.stl', data: tiny })
      assert.equal(second._id, first._id)
      const ms = await stoppedAfter(pid, started)
      assert.ok(ms < STOP_WITHIN_MS, `the superseded conversion process lived on for ${ms} ms`)
      ctx.diagnostic(`conversion process gone ${ms} ms after the revision upload was sent`)
      await until('the new revision ready', async () => (await stateOf(owner, first._id)) === 'ready', 60_000)
      const done = await fileOf(owner, first._id)
      assert.equal(done?.__v, 1)
      assert.equal(done?.size, tiny.length)
      // The superseded job is gone, the new revision's is the record of its conversion.
      assert.deepEqual(await jobsOf(first._id), [{ state: 'done', file_revision: 1 }])
      await until('both runs disposed', () => conversionFolders().length === 0, 10_000)
    })

    test('TESSERA_CONVERSION_ACCOUNT_CONCURRENCY=1: a busy account leaves the second slot to others', async (ctx) => {
      const capped = await startApp(
        dialect,
        { conversionConcurrency: 2, conversionAccountConcurrency: 1 },
        {
          conversions: true,
        },
      )
      ctx.after(() => capped.close())
      const busy = await signedIn(capped.app, 'capped')
      const other = await signedIn(capped.app, 'other')
      const state = async (user: User, id: string) => {
        const res = await capped.app.inject({ method: 'GET', url: `/file/${id}`, headers: user.headers })
        return (res.json() as { file: FileView }).file.state
      }
      const model = terrainStl(600_000)
      const first = await uploadFile(capped.app, busy.headers, { name: 'first.stl', data: model })
      const second = await uploadFile(capped.app, busy.headers, { name: 'second.stl', data: model })
      await until('the first converting', async () => (await state(busy, first._id)) === 'converting', 60_000)
      const tiny = await uploadFile(capped.app, other.headers, { name: 'tiny.stl', data: stlCube('other') })
      let busyAtOnce = 0
      await until(
        'the other account’s model ready',
        async () => {
          const states = [await state(busy, first._id), await state(busy, second._id)]
          busyAtOnce = Math.max(busyAtOnce, states.filter((s) => s === 'converting').length)
          return (await state(other, tiny._id)) === 'ready'
        },
        120_000,
      )
      // The free slot went to the other account at once, not to the busy account's second model.
      assert.equal(await state(busy, first._id), 'converting')
      assert.equal(await state(busy, second._id), 'queued')
      assert.equal(busyAtOnce, 1)
      for (const id of [first._id, second._id]) {
        await until(`${id} ready`, async () => (await state(busy, id)) === 'ready', 180_000)
      }
    })

    /** Uploads a model and a revision of it, and runs `during` while the revision converts. */
    async function changeWhileRevisionConverts(
      name: string,
      during: (fileId: string) => Promise<void>,
    ): Promise<void> {
      const file = await uploadFile(t.app, owner.headers, { name, data: stlCube(name) })
      await until(
        'the first revision ready',
        async () => (await stateOf(owner, file._id)) === 'ready',
        60_000,
      )
      const viewer = await signedIn(t.app, 'viewer')
      const share = await t.app.inject({
        method: 'POST',
        url: `/file/${file._id}/share`,
        headers: owner.headers,
        payload: { email: viewer.account.email, role: 'viewer' },
      })
      assert.equal(share.statusCode, 200, share.body)
      const model = terrainStl(300_000)
      const revision = await uploadFile(t.app, owner.headers, { name, data: model })
      await convertingChild(owner, file._id)
      await during(file._id)
      // Something must still be on its way to finish the file.
      assert.ok(!(await filesWithoutLiveConversion(t.db.kysely)).includes(file._id), 'no live job')
      await until(
        'the conversion of the revision to end',
        async () =>
          !(await jobsOf(file._id)).some((job) => job.state === 'queued' || job.state === 'running'),
        120_000,
      )
      const done = await fileOf(owner, file._id)
      assert.equal(done?.state, 'ready', `the file ends ${done?.state} ${done?.progress}`)
      assert.equal(done?.size, model.length)
      assert.ok((done?.__v ?? 0) >= revision.__v)
      assert.ok(!(await filesWithoutLiveConversion(t.db.kysely)).includes(file._id))
    }

    test('share, revision, revoke during its conversion: the file ends ready with the new revision', async () => {
      await changeWhileRevisionConverts('shared.stl', async (fileId) => {
        const email = (
          await t.db.kysely
            .selectFrom('file_shares')
            .innerJoin('accounts', 'accounts.id', 'file_shares.account_id')
            .select('accounts.email')
            .where('file_shares.file_id', '=', fileId)
            .executeTakeFirstOrThrow()
        ).email
        const res = await t.app.inject({
          method: 'DELETE',
          url: `/file/${fileId}/share/${encodeURIComponent(email)}`,
          headers: owner.headers,
        })
        assert.equal(res.statusCode, 200, res.body)
      })
    })

    test('an attribute write during the conversion of a revision: the file ends ready', async () => {
      await changeWhileRevisionConverts('attributed.stl', async (fileId) => {
        const tree = await t.db.kysely
          .selectFrom('scene_nodes')
          .select('node_id')
          .where('file_id', '=', fileId)
          .executeTakeFirst()
        const res = await t.app.inject({
          method: 'POST',
          url: '/scene/attributes',
          headers: owner.headers,
          payload: { file: fileId, nodeIdToAttributes: { [tree?.node_id ?? 'root']: { material: 'steel' } } },
        })
        assert.equal(res.statusCode, 200, res.body)
      })
    })
  })
}

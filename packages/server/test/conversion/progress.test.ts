// Honest conversion progress, through the API on every dialect: a model that takes more than two
// seconds (a generated 800k-triangle binary STL terrain) shows at least five distinct, increasing
// values to a client polling GET /file/:id every 50 ms; the stored writes (counted by a database
// trigger, timed by the database's clock) are at least 250 ms apart; and a retried conversion
// (its process killed mid-way) never shows a lower value than before.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { signedIn } from '../support/api.ts'
import { terrainStl } from '../support/big-models.ts'
import { uploadFile } from '../support/files.ts'
import { type DialectUnderTest, dialects, startApp, type TestApp } from '../support/harness.ts'
import { sleep, until } from '../support/receiver.ts'

// About 4 s here since the sources run without tsx (400k took 1.9-2.1 s: too close to the bound).
const TRIANGLES = 800_000

type User = Awaited<ReturnType<typeof signedIn>>
interface Seen {
  state: string
  progress: number
  at: number
}

/** Logs every progress write of a converting file (not the state changes) with the database's clock. */
async function recordProgressWrites(t: TestApp, dialect: DialectUnderTest): Promise<void> {
  const { kysely } = t.db
  await sql`create table progress_log (file_id text not null, progress integer not null, at_ms double precision not null)`.execute(
    kysely,
  )
  if (dialect.name === 'sqlite') {
    await sql`create trigger progress_written after update of progress on files
      when old.state = 'converting' and new.state = 'converting'
      begin insert into progress_log values (new.id, new.progress, (julianday('now') - 2440587.5) * 86400000.0); end`.execute(
      kysely,
    )
    return
  }
  await sql`create function log_progress() returns trigger language plpgsql as $$
    begin insert into progress_log values (new.id, new.progress, extract(epoch from clock_timestamp()) * 1000); return new; end $$`.execute(
    kysely,
  )
  await sql`create trigger progress_written after update of progress on files for each row
    when (old.state = 'converting' and new.state = 'converting' and old.progress is distinct from new.progress)
    execute function log_progress()`.execute(kysely)
}

async function progressWrites(t: TestApp, fileId: string) {
  const rows = await sql<{ progress: number; at_ms: number }>`
    select progress, at_ms from progress_log where file_id = ${fileId} order by at_ms`.execute(t.db.kysely)
  return rows.rows.map((row) => ({ progress: Number(row.progress), at: Number(row.at_ms) }))
}

/** Polls GET /file/:id every 50 ms until ready or error; `during` runs on every sample. */
async function watch(
  base: string,
  user: User,
  fileId: string,
  during?: (seen: Seen) => void,
): Promise<Seen[]> {
  const seen: Seen[] = []
  const deadline = Date.now() + 120_000
  for (;;) {
    const res = await fetch(`${base}/file/${fileId}`, { headers: user.headers })
    assert.equal(res.status, 200)
    const { file } = (await res.json()) as { file: { state: string; progress: number } }
    const sample = { state: file.state, progress: file.progress, at: Date.now() }
    seen.push(sample)
    during?.(sample)
    if (file.state === 'ready' || file.state === 'error') return seen
    assert.ok(Date.now() < deadline, 'the conversion did not finish within 120 s')
    await sleep(50)
  }
}

function assertNeverBackwards(seen: Seen[]): void {
  for (let i = 1; i < seen.length; i++) {
    const [previous, current] = [seen[i - 1], seen[i]]
    assert.ok(previous && current)
    assert.ok(
      current.progress >= previous.progress,
      `progress went from ${previous.progress} (${previous.state}) to ${current.progress} (${current.state})`,
    )
  }
}

/** PIDs of this process's conversion children (child.ts). */
function conversionChildren(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
  return out
    .split('\n')
    .filter((line) => /conversion[/\\]child\.(ts|js)/.test(line))
    .map((line) => Number.parseInt(line.trim(), 10))
}

for (const dialect of dialects()) {
  describe(`conversion progress on ${dialect.name}`, () => {
    let t: TestApp
    let user: User
    let base: string
    const model = terrainStl(TRIANGLES)
    before(async () => {
      t = await startApp(dialect, { uploadMaxBytes: 64 * 1024 * 1024 }, { conversions: true })
      await recordProgressWrites(t, dialect)
      user = await signedIn(t.app, 'progress')
      base = await t.app.listen({ port: 0, host: '127.0.0.1' })
    })
    after(() => t.close())

    test('a > 2 s conversion shows ≥ 5 distinct increasing values; stored writes ≥ 250 ms apart', async (ctx) => {
      const file = await uploadFile(t.app, user.headers, { name: 'terrain.stl', data: model })
      const seen = await watch(base, user, file._id)
      const last = seen.at(-1)
      assert.equal(last?.state, 'ready')
      assert.equal(last?.progress, 100)
      const converting = seen.filter((s) => s.state === 'converting')
      const first = converting[0]
      assert.ok(first && last && last.at - first.at > 2000, 'the model must take more than 2 s to convert')
      assertNeverBackwards(seen)
      const distinct = [...new Set(seen.map((s) => s.progress))]
      assert.ok(distinct.length >= 5, `distinct values seen: ${distinct.join(', ')}`)

      const writes = await progressWrites(t, file._id)
      ctx.diagnostic(`seen ${distinct.join(' → ')}; stored ${writes.map((w) => w.progress).join(' → ')}`)
      assert.ok(writes.length >= 3, `stored writes: ${JSON.stringify(writes)}`)
      for (let i = 1; i < writes.length; i++) {
        const [a, b] = [writes[i - 1], writes[i]]
        assert.ok(a && b)
        assert.ok(
          b.at - a.at >= 250,
          `writes ${a.progress} → ${b.progress} only ${(b.at - a.at).toFixed(1)} ms apart`,
        )
        assert.ok(b.progress > a.progress)
      }
    })

    if (dialect.name !== 'sqlite') return
    test('a retried conversion (process killed) never shows a lower value', async () => {
      const file = await uploadFile(t.app, user.headers, { name: 'retried.stl', data: model })
      let killedAt: number | null = null
      const states = new Set<string>()
      const seen = await watch(base, user, file._id, (sample) => {
        states.add(sample.state)
        if (killedAt === null && sample.state === 'converting' && sample.progress >= 20) {
          killedAt = sample.progress
          for (const pid of conversionChildren()) process.kill(pid, 'SIGKILL')
        }
      })
      assert.ok(killedAt !== null, 'the conversion was never seen at ≥ 20 %')
      assert.equal(seen.at(-1)?.state, 'ready')
      // The retry went back to the queue (state change) but held the progress readers had seen.
      assert.ok(states.has('queued'))
      assertNeverBackwards(seen)
      const attempts = await t.db.kysely
        .selectFrom('jobs')
        .select('attempts')
        .where('file_id', '=', file._id)
        .executeTakeFirstOrThrow()
      assert.equal(attempts.attempts, 2)
      await until(
        'no conversion process left',
        async () => conversionChildren().length === 0 || undefined,
        10_000,
      )
    })
  })
}

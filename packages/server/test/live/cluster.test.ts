// Live sessions under `tessera serve --processes 2`, every dialect (the relay between processes: the
// primary's IPC on SQLite, NOTIFY on PostgreSQL): participants spread over both API processes see
// each other; when one process is killed its participants reconnect (resuming their ids) to the
// port, and presence is whole again for everyone, also past the dead process's heartbeat expiry.
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { sleep, until } from '../support/emitter.ts'
import { createUser, signIn, upload } from '../support/http-client.ts'
import { joinLive, type LiveClient } from '../support/live.ts'
import { type Server, startServer } from '../support/process.ts'
import { processTargets } from '../support/targets.ts'

const N = 6

/** Who a client sees, from its messages (welcome, joined, left). */
function presence(client: LiveClient): Set<string> {
  const seen = new Set<string>()
  for (const m of client.messages) {
    if (m.type === 'welcome') {
      seen.clear()
      for (const p of m.participants as Array<{ participantId: string }>) seen.add(p.participantId)
    } else if (m.type === 'joined') seen.add((m.participant as { participantId: string }).participantId)
    else if (m.type === 'left') seen.delete(String(m.participantId))
  }
  return seen
}

function apiPids(output: string): number[] {
  const lines = output
    .split('\n')
    .filter((l) => l.includes('"workers":false') && l.includes('Tessera is listening'))
  return [...new Set(lines.map((line) => (JSON.parse(line) as { pid: number }).pid))]
}

for (const factory of processTargets()) {
  describe(`live sessions under serve --processes 2 on ${factory.name}`, () => {
    const cleanups: Array<() => Promise<void> | void> = []
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup()
    })

    test('participants on both processes see each other; a killed process’s participants come back', async () => {
      const target = await factory.create()
      cleanups.push(() => target.cleanup())
      const server: Server = await startServer(target.env, ['--processes', '2'])
      cleanups.push(() => {
        if (server.child.exitCode === null) server.child.kill('SIGKILL')
      })
      await until('both processes up', async () => apiPids(server.output()).length === 2, 90_000)
      const client = await signIn(server.baseUrl, await createUser(target.env))
      const file = await upload(server.baseUrl, client, 'a.stl', Buffer.from('not a model'))
      const fileId = file.id ?? ''
      // New connections go to the API processes in turn: N of them land on both.
      const joined: Array<Awaited<ReturnType<typeof joinLive>>> = []
      for (let i = 0; i < N; i++) joined.push(await joinLive(server.baseUrl, fileId, client.headers))
      await until(
        'everyone sees everyone',
        async () => joined.every((j) => presence(j.client).size === N),
        10_000,
      )

      process.kill(apiPids(server.output())[0] ?? 0, 'SIGKILL')
      await until(
        'the killed process’s sockets closed',
        async () => {
          const closed = await Promise.all(
            joined.map((j) => Promise.race([j.client.closed.then(() => true), sleep(0).then(() => false)])),
          )
          return closed.some(Boolean)
        },
        10_000,
      )
      await sleep(200)
      const states = await Promise.all(
        joined.map((j) => Promise.race([j.client.closed.then(() => true), sleep(0).then(() => false)])),
      )
      const dropped = joined.filter((_, i) => states[i])
      const kept = joined.filter((_, i) => !states[i])
      assert.ok(dropped.length > 0 && kept.length > 0, `${dropped.length} dropped, ${kept.length} kept`)
      const back: Array<Awaited<ReturnType<typeof joinLive>>> = []
      for (const d of dropped)
        back.push(await joinLive(server.baseUrl, fileId, client.headers, { resume: d.you }))
      for (const [i, b] of back.entries()) assert.equal(b.you, dropped[i]?.you, 'the id is resumed')
      const everyone = [...kept, ...back]
      await until(
        'presence whole again',
        async () => everyone.every((j) => presence(j.client).size === N),
        10_000,
      )
      // Past the dead process's heartbeat expiry (4 s): nobody was dropped for it.
      await sleep(5000)
      for (const j of everyone) assert.equal(presence(j.client).size, N)
      for (const j of everyone) j.client.close()
    })
  })
}

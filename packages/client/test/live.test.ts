// The SDK's live sessions against a real `tessera serve` (SQLite; the server's own tests cover both
// dialects): two sessions of one account on a file see each other, a camera crosses (the latest of
// a burst arrives), a change notice comes after an annotation, and closing one tells the other.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type LiveCamera, type LiveSession, Tessera } from '@tessera/client'
import { uploadPath } from '@tessera/client/node'
import { SMALL_HOUSE } from './support/receiver.ts'
import { type Instance, startTessera } from './support/server.ts'

async function until<T>(what: string, look: () => T | undefined | null | false, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const found = look()
    if (found) return found
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe('@tessera/client live sessions', () => {
  let server: Instance
  let tessera: Tessera
  const sessions: LiveSession[] = []
  before(async () => {
    server = await startTessera('sqlite')
    tessera = await Tessera.connect({ url: server.url, ...server.admin })
  })
  after(async () => {
    for (const session of sessions) session.close()
    await tessera?.close().catch(() => {})
    await server?.stop()
  })

  test('two sessions see each other, cameras and changes cross, a close is told', async () => {
    const file = await uploadPath(tessera, SMALL_HOUSE.pathname, { parent: '/live' })
    const seen = {
      a: [] as string[],
      cameras: [] as LiveCamera[],
      changed: [] as string[],
      left: [] as string[],
    }
    const a = tessera.live(file._id, {
      welcome: ({ participants }) => seen.a.push(...participants.map((p) => p.participantId)),
      joined: (p) => seen.a.push(p.participantId),
      left: (id) => seen.left.push(id),
      camera: (_id, camera) => seen.cameras.push(camera),
      changed: (kind, id) => seen.changed.push(`${kind}:${id}`),
    })
    sessions.push(a)
    await until('a welcome', () => a.you)
    const b = tessera.live(file._id, {})
    sessions.push(b)
    const bId = await until('b welcome', () => b.you)
    await until('a sees b', () => seen.a.includes(bId))
    for (let x = 0; x < 10; x++) b.camera({ position: [x, 0, 0], target: [0, 0, 0] })
    await until('the latest camera', () => seen.cameras.some((c) => c.position[0] === 9))
    assert.ok(seen.cameras.length <= 2, `${seen.cameras.length} cameras for a burst of 10`)
    const note = await tessera.annotations.create({ file: file._id, name: 'Look here' })
    await until('a changed notice', () => seen.changed.includes(`annotation:${note._id}`))
    b.close()
    await until('b left', () => seen.left.includes(bId))
  })
})

// The SDK's live events against a real `tessera serve` (SQLite: the stream's storage side is
// tested on both dialects in the server's event-stream tests): typed envelopes as they commit,
// resume after an event, a refused filter, and waitUntilReady on the stream (few GETs) or, when
// the stream is refused, by polling; a script that waited exits once it closes its client.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { type StreamItem, Tessera, TesseraError } from '@tessera/client'
import { uploadPath } from '@tessera/client/node'
import { SMALL_HOUSE } from './support/receiver.ts'
import { type Instance, startTessera } from './support/server.ts'

/** A fetch that counts the calls per kind and can refuse the event stream with a 404. */
function countingFetch(refuseStream: boolean) {
  const calls = { stream: 0, fileGets: 0 }
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input)
    const method = input instanceof Request ? input.method : (init?.method ?? 'GET')
    if (url.includes('/events/stream')) {
      calls.stream++
      if (refuseStream) return new Response('{}', { status: 404 })
    } else if (method === 'GET' && /\/file\/[0-9a-f]{24}$/.test(url)) calls.fileGets++
    return globalThis.fetch(input, init)
  }
  return { calls, fetch }
}

// The README's tour in short: connect, wait for a file, close. Run in a child process of its own,
// whose exit is the assertion: a stream request left open kept such a script alive.
const WAIT_AND_CLOSE = `
import { Tessera } from '@tessera/client'
const { url, authToken, fileId } = JSON.parse(process.env.WAIT_SCRIPT_INPUT)
const tessera = await Tessera.connect({ url, authToken })
const ready = await tessera.files.waitUntilReady(fileId, { timeoutMs: 60_000 })
await tessera.close()
console.log(ready.state)
`

/** Runs WAIT_AND_CLOSE; answers its exit code and output, or null when it had not exited in time. */
async function runWaitScript(input: object, withinMs: number) {
  const child = spawn(
    process.execPath,
    ['--conditions=@tessera/source', '--input-type=module', '-e', WAIT_AND_CLOSE],
    {
      // Where `@tessera/client` resolves (the package's own name), as at the repository's root.
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      env: { ...process.env, WAIT_SCRIPT_INPUT: JSON.stringify(input) },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const timer = setTimeout(() => child.kill('SIGKILL'), withinMs)
  const [code] = (await once(child, 'exit')) as [number | null]
  clearTimeout(timer)
  return code === null ? null : { code, output: output.trim() }
}

async function firstEvent(stream: AsyncGenerator<StreamItem>): Promise<StreamItem & { type: 'event' }> {
  for await (const item of stream) if (item.type === 'event') return item
  throw new Error('the stream ended without an event')
}

describe('@tessera/client events', () => {
  let server: Instance
  let tessera: Tessera
  before(async () => {
    server = await startTessera('sqlite')
    tessera = await Tessera.connect({ url: server.url, ...server.admin })
  })
  after(async () => {
    await tessera?.close().catch(() => {})
    await server?.stop()
  })

  test('events() yields typed envelopes as they commit, and resumes after an event id', async () => {
    let opened = 0
    const stream = tessera.events({ events: ['file_uploaded'], onOpen: () => opened++ })
    const next = firstEvent(stream)
    while (opened === 0) await new Promise((resolve) => setTimeout(resolve, 10))
    const one = await uploadPath(tessera, SMALL_HOUSE.pathname, { parent: '/events/a' })
    const seen = await next
    assert.equal(seen.envelope.event, 'file_uploaded')
    assert.equal(seen.envelope.file, one._id)
    assert.match(seen.id, /^[0-9a-f]{24}$/)
    const two = await uploadPath(tessera, SMALL_HOUSE.pathname, { parent: '/events/b' })
    const resumed = await firstEvent(tessera.events({ events: ['file_uploaded'], lastEventId: seen.id }))
    assert.equal(resumed.envelope.file, two._id, 'resumes after the given event, not at it')
  })

  test('an unknown event name is refused with a typed 400', async () => {
    // @ts-expect-error: not an event name
    const stream = tessera.events({ events: ['nope'] })
    await assert.rejects(stream.next(), (error: unknown) => {
      assert.ok(error instanceof TesseraError)
      assert.equal(error.status, 400)
      assert.equal(error.code, 'VALIDATION_FAILED')
      return true
    })
  })

  for (const refuseStream of [false, true]) {
    test(`waitUntilReady ${refuseStream ? 'polls when the stream is refused' : 'waits on the event stream'}`, async () => {
      const { calls, fetch } = countingFetch(refuseStream)
      const client = await Tessera.connect({ url: server.url, authToken: tessera.authToken, fetch })
      try {
        const file = await uploadPath(client, SMALL_HOUSE.pathname, { parent: `/wait/${refuseStream}` })
        const ready = await client.files.waitUntilReady(file._id, { timeoutMs: 120_000 })
        assert.equal(ready.state, 'ready')
        assert.equal(calls.stream, 1)
        // On the stream: one GET after subscribing, one when the result arrives. Polling GETs every
        // 250 ms and more while the conversion (about 1 s here) runs.
        if (refuseStream) assert.ok(calls.fileGets >= 2, `GETs ${calls.fileGets}`)
        else assert.ok(calls.fileGets <= 2, `GETs ${calls.fileGets}`)
      } finally {
        await client.close().catch(() => {})
      }
    })
  }

  test('a script that waited for a file exits once it closes its client', async () => {
    // A session of its own: the tests above superseded `tessera`'s (one session per account).
    const client = await Tessera.connect({ url: server.url, authToken: tessera.authToken })
    const file = await uploadPath(client, SMALL_HOUSE.pathname, { parent: '/wait/exit' }).finally(() =>
      client.close(),
    )
    // Right after the upload (the answer mostly from the stream) and once ready (from the first GET).
    for (const round of ['just uploaded', 'ready']) {
      const input = { url: server.url, authToken: tessera.authToken, fileId: file._id }
      const done = await runWaitScript(input, 20_000)
      assert.ok(done, `the script (file ${round}) was still running after 20 s`)
      assert.deepEqual(done, { code: 0, output: 'ready' })
    }
  })
})

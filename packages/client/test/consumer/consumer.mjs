// A plain JavaScript project using the installed @tessera/client (test/packed.test.ts copies this
// file into a fresh project outside the repository). Connects, registers a webhook, uploads a model
// from a path, waits until it is ready, lists the folder, exports its (empty) BCF, and verifies the
// delivery of `file_optimized` with the package's verifier. Prints one JSON line.
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createServer } from 'node:http'
import { Tessera, uploadPath } from '@tessera/client/node'
import { verifyWebhook } from '@tessera/client/webhooks'

const [url, username, password, modelPath] = process.argv.slice(2)
const SECRET = randomBytes(24).toString('base64url')

const deliveries = []
const receiver = createServer((req, res) => {
  const chunks = []
  req.on('data', (chunk) => chunks.push(chunk))
  req.on('end', () => {
    deliveries.push({ headers: req.headers, body: Buffer.concat(chunks) })
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}')
  })
})
receiver.listen(0, '127.0.0.1')
await once(receiver, 'listening')

async function firstDelivery() {
  const deadline = Date.now() + 30_000
  while (deliveries.length === 0) {
    if (Date.now() > deadline) throw new Error('no webhook delivery arrived')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return deliveries[0]
}

const tessera = await Tessera.connect({ url, username, password })
try {
  const hook = await tessera.webhooks.create({
    event: 'file_optimized',
    url: `http://127.0.0.1:${receiver.address().port}/hook`,
    secretToken: SECRET,
  })
  const file = await uploadPath(tessera, modelPath, { parent: '/packed' })
  const ready = await tessera.files.waitUntilReady(file._id, { timeoutMs: 60_000 })
  const listed = (await tessera.files.list('/packed')).map((f) => f.key)
  const bcf = await tessera.files.exportBcf(file._id)
  const delivery = await firstDelivery()
  const envelope = await verifyWebhook({ headers: delivery.headers, body: delivery.body, secret: SECRET })
  let tampered = 'accepted'
  try {
    await verifyWebhook({ headers: delivery.headers, body: `${delivery.body} `, secret: SECRET })
  } catch (error) {
    tampered = error.reason
  }
  await tessera.webhooks.delete(hook.id)
  const result = {
    state: ready.state,
    listed,
    bcf: [bcf.filename, new TextDecoder().decode(bcf.bytes.subarray(0, 2))],
    event: envelope.event,
    sameFile: envelope.file === file._id,
    tampered,
  }
  process.stdout.write(`${JSON.stringify(result)}\n`)
} finally {
  await tessera.close()
  receiver.closeAllConnections()
  receiver.close()
}

// The Node part of the strict TypeScript consumer (tsconfig.node.json: `types: ["node"]`). Node
// runs it as it is, stripping the types (the consumer's own files are outside node_modules).
import { readFile } from 'node:fs/promises'
import { toNodeStream } from '@tessera/client/node'
import { Tessera, uploadBlob } from './browser.ts'

const [url, username, password, modelPath] = process.argv.slice(2)
if (!url || !username || !password || !modelPath) throw new Error('usage: main.ts URL USER PASSWORD MODEL')

const model = await readFile(modelPath)
const tessera = await Tessera.connect({ url, username, password })
try {
  const { outcome, file } = await uploadBlob(tessera, new Blob([model]))
  let downloaded = 0
  for await (const chunk of toNodeStream(await tessera.files.download(file._id))) {
    downloaded += (chunk as Buffer).byteLength
  }
  process.stdout.write(`${JSON.stringify({ ...outcome, sameBytes: downloaded === model.byteLength })}\n`)
} finally {
  await tessera.close()
}

// Entry of a conversion child process: one conversion, then exit. The parent (runner.ts) sends
// the paths over IPC and gets progress and one outcome back. Running each conversion in its own
// process keeps importers (large wasm modules, native image codecs) off the API's event loop and
// lets the parent enforce the time budget with SIGKILL and the heap limit with V8's flag; a crash
// here costs one attempt, never the server.
import { readFile, writeFile } from 'node:fs/promises'
import { convertModel } from './pipeline/convert.ts'
import { ConversionError } from './pipeline/types.ts'
import type { ChildMessage, ChildRequest } from './protocol.ts'

function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) return resolve()
    process.send(message, undefined, {}, () => resolve())
  })
}

async function run(request: ChildRequest): Promise<ChildMessage> {
  try {
    const bytes = new Uint8Array(await readFile(request.inputPath))
    let last = -1
    const result = await convertModel({ name: request.name, bytes }, (percent) => {
      const rounded = Math.max(0, Math.min(99, Math.round(percent)))
      if (rounded === last) return
      last = rounded
      void send({ type: 'progress', percent: rounded })
    })
    await writeFile(request.outputPath, result.glb)
    return { type: 'converted', tree: result.tree, stats: result.stats }
  } catch (error) {
    if (error instanceof ConversionError) return { type: 'rejected', reason: error.message }
    return { type: 'failed', detail: error instanceof Error ? (error.stack ?? error.message) : String(error) }
  }
}

// The worker that started us is gone (killed, crashed): its job will be retried elsewhere once its
// lease runs out, so finishing this conversion would only burn CPU for nobody.
process.once('disconnect', () => process.exit(1))

process.once('message', (request: ChildRequest) => {
  void run(request)
    .then(send)
    .then(() => process.exit(0))
})

// Entry of a conversion child process: one conversion, then exit. The parent (runner.ts) sends
// the paths over IPC and gets progress and one outcome back. Running each conversion in its own
// process keeps importers (large wasm modules, native image codecs) off the API's event loop and
// lets the parent enforce the time budget and the memory limit (our resident set, sampled by
// memory-watch.ts) with SIGKILL; a crash here costs one attempt, never the server.
import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { finished } from 'node:stream/promises'
import { convertModel } from './pipeline/convert.ts'
import type { PropertyEntry } from './pipeline/node-properties.ts'
import { ConversionError } from './pipeline/types.ts'
import type { ChildMessage, ChildRequest } from './protocol.ts'
import { renderThumbnail } from './thumbnail.ts'

/** The pipeline's 0–100 is shown as 0–90; the thumbnail takes the rest up to 99 (100 = stored). */
const PIPELINE_SHARE = 0.9

function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) return resolve()
    process.send(message, undefined, {}, () => resolve())
  })
}

let lastPercent = -1
function progress(percent: number): void {
  const rounded = Math.max(0, Math.min(99, Math.round(percent)))
  if (rounded <= lastPercent) return
  lastPercent = rounded
  void send({ type: 'progress', percent: rounded })
}

async function run(request: ChildRequest): Promise<ChildMessage> {
  try {
    const bytes = new Uint8Array(await readFile(request.inputPath))
    const result = await convertModel({ name: request.name, bytes }, (percent) =>
      progress(percent * PIPELINE_SHARE),
    )
    await writeFile(request.outputPath, result.glb, { mode: 0o600 })
    await writePropertyLines(request.propertiesPath, result.properties)
    progress(92)
    const thumbnailError = await writeThumbnail(result.glb, request.thumbnailPath)
    progress(99)
    const maxRssKb = process.resourceUsage().maxRSS
    const { tree, stats, propertiesTruncated } = result
    return { type: 'converted', tree, stats, propertiesTruncated, thumbnailError, maxRssKb }
  } catch (error) {
    if (error instanceof ConversionError) return { type: 'rejected', reason: error.message }
    return { type: 'failed', detail: error instanceof Error ? (error.stack ?? error.message) : String(error) }
  }
}

/**
 * One JSON line per node with properties, `{nodeId, groups, units}`: the worker streams them into
 * the database, so a model of 50,000 described parts never crosses the IPC channel as one message.
 * In node ID order: the rows' primary key starts with the node, so the database appends them
 * instead of inserting at random places (1.7× faster on SQLite than tree order, for 1.3 M rows).
 */
async function writePropertyLines(path: string, entries: readonly PropertyEntry[]): Promise<void> {
  const out = createWriteStream(path, { mode: 0o600 })
  const sorted = [...entries].sort((a, b) => (a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0))
  for (const entry of sorted) {
    if (!out.write(`${JSON.stringify(entry)}\n`)) await once(out, 'drain')
  }
  out.end()
  await finished(out)
}

/** A thumbnail failure is a bug for the worker's log, not a failed conversion: answers its detail. */
async function writeThumbnail(glb: Uint8Array, path: string): Promise<string | null> {
  try {
    await writeFile(path, await renderThumbnail(glb), { mode: 0o600 })
    return null
  } catch (error) {
    return error instanceof Error ? (error.stack ?? error.message) : String(error)
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

// `tessera upload FILE… [--parent /dir] [--wait]`: one progress bar per file for the bytes, then for
// the conversion (cli-progress on a terminal; plain log lines otherwise, for CI logs and pipes).
import { stat } from 'node:fs/promises'
import path from 'node:path'
import type { Tessera } from '@tessera/client'
import { uploadPath } from '@tessera/client/node'
import cliProgress from 'cli-progress'

/** What the upload command reports; a terminal and a log render it differently. */
export interface UploadRenderer {
  start(name: string, total: number): void
  bytes(name: string, loaded: number): void
  converting(name: string, percent: number): void
  done(name: string, line: string): void
  stop(): void
}

const ONE_SECOND = 1000

/** Plain lines: at most one per file and second (plus the milestones), so logs stay readable. */
export function lineRenderer(write: (line: string) => void): UploadRenderer {
  const last = new Map<string, number>()
  const totals = new Map<string, number>()
  const throttled = (name: string, line: string, force: boolean) => {
    const now = Date.now()
    if (!force && now - (last.get(name) ?? 0) < ONE_SECOND) return
    last.set(name, now)
    write(line)
  }
  return {
    start: (name, total) => {
      totals.set(name, total)
      write(`${name}: uploading ${formatBytes(total)}`)
    },
    bytes: (name, loaded) => {
      const total = totals.get(name) ?? 0
      const percent = total > 0 ? Math.floor((loaded / total) * 100) : 100
      throttled(name, `${name}: uploaded ${percent}%`, loaded >= total)
    },
    converting: (name, percent) => throttled(name, `${name}: converting ${percent}%`, false),
    done: (_name, line) => write(line),
    stop: () => {},
  }
}

/** One bar per file on a terminal; the same bar shows the bytes, then the conversion. */
export function barRenderer(stream: NodeJS.WritableStream & { isTTY?: boolean }): UploadRenderer {
  const multi = new cliProgress.MultiBar(
    {
      stream,
      // cli-progress checks the stream's TTY-ness itself; tests hand it a fake terminal.
      noTTYOutput: true,
      hideCursor: true,
      clearOnComplete: false,
      format: ' {name} |{bar}| {percentage}% {phase}',
    },
    cliProgress.Presets.shades_classic,
  )
  const bars = new Map<string, cliProgress.SingleBar>()
  const finished: string[] = []
  return {
    start: (name, total) => bars.set(name, multi.create(Math.max(total, 1), 0, { name, phase: 'upload' })),
    bytes: (name, loaded) => bars.get(name)?.update(loaded),
    converting: (name, percent) => {
      const bar = bars.get(name)
      bar?.setTotal(100)
      bar?.update(percent, { phase: 'converting' })
    },
    done: (name, line) => {
      bars
        .get(name)
        ?.update({ phase: line.includes(': ready ') || line.includes(': uploaded as ') ? 'done' : 'failed' })
      finished.push(line)
    },
    // The outcomes (a failure's whole reason) are printed under the bars once they stop.
    stop: () => {
      multi.stop()
      for (const line of finished) stream.write(`${line}\n`)
    },
  }
}

export interface UploadCommandOptions {
  parent?: string
  wait?: boolean
}

/** Uploads every file in turn; answers the exit code (1 when an upload or a conversion failed). */
export async function uploadFiles(
  tessera: Tessera,
  files: string[],
  options: UploadCommandOptions,
  render: UploadRenderer,
): Promise<number> {
  let failed = 0
  try {
    for (const file of files) {
      const ok = await uploadOne(tessera, file, options, render)
      if (!ok) failed++
    }
  } finally {
    render.stop()
  }
  return failed > 0 ? 1 : 0
}

async function uploadOne(
  tessera: Tessera,
  file: string,
  options: UploadCommandOptions,
  render: UploadRenderer,
): Promise<boolean> {
  const name = path.basename(file)
  try {
    render.start(name, (await stat(file)).size)
    const uploaded = await uploadPath(tessera, file, {
      ...(options.parent ? { parent: options.parent } : {}),
      onProgress: ({ loaded }) => render.bytes(name, loaded),
    })
    if (!options.wait) {
      render.done(name, `${name}: uploaded as ${uploaded._id} (${uploaded.key})`)
      return true
    }
    return await awaitConversion(tessera, name, uploaded._id, render)
  } catch (error) {
    render.done(name, `${name}: error: ${(error as Error).message}`)
    return false
  }
}

/** Polls the file (0.5 s) and shows the server's conversion progress until ready or error. */
async function awaitConversion(
  tessera: Tessera,
  name: string,
  id: string,
  render: UploadRenderer,
): Promise<boolean> {
  const deadline = Date.now() + 15 * 60_000
  while (Date.now() < deadline) {
    const file = await tessera.files.get(id)
    if (file.state === 'ready') {
      render.converting(name, 100)
      render.done(name, `${name}: ready ${id} (${file.key})`)
      return true
    }
    if (file.state === 'error') {
      render.done(name, `${name}: conversion failed ${id}: ${file.error || 'no reason given'}`)
      return false
    }
    render.converting(name, file.progress)
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  render.done(name, `${name}: still converting after 15 minutes ${id}`)
  return false
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  const units = ['KiB', 'MiB', 'GiB', 'TiB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value.toFixed(1)} ${units[unit]}`
}

// `tessera bcf export FILE [OUT]` and `tessera bcf import FILE ZIP`: a file's annotations and saved
// views out as a BCF 3.0 .bcfzip, and a BCF 2.1 or 3.0 file into them (docs/api.md, "BCF"). Their
// routes need a session, so each run takes one license for its duration (withSession), as `props` does.
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { BcfExport, BcfImport } from '@tessera/client'
import { ClientFailure, ClientUsageError, parse, resolveUrl, withSession } from './credentials.ts'
import { formatBytes } from './upload.ts'

function out(line: string): void {
  process.stdout.write(`${line}\n`)
}

/** --json, and --keep-session as on the other commands that open a session. */
const OPTIONS = { json: { type: 'boolean' }, 'keep-session': { type: 'boolean' } } as const

/** How many unknown GlobalIds the summary names; --json has them all. */
const UNKNOWN_SHOWN = 5

export async function bcfCommand(args: string[]): Promise<void> {
  const [action, ...rest] = args
  const { values, positionals } = parse(rest, OPTIONS)
  const url = resolveUrl(values.url)
  const choice = { keepSession: values['keep-session'] === true }
  if (action === 'export') {
    const [fileId, output, extra] = positionals
    if (!fileId || extra !== undefined)
      throw new ClientUsageError('bcf export needs a file ID (and, if you like, OUT)')
    if (values.json) throw new ClientUsageError('bcf export writes a zip: --json is for bcf import')
    return withSession(
      url,
      async (tessera) => exportTo(await tessera.files.exportBcf(fileId), output),
      choice,
    )
  }
  if (action === 'import') {
    const [fileId, zipPath, extra] = positionals
    if (!fileId || !zipPath || extra !== undefined)
      throw new ClientUsageError('bcf import needs a file ID and a .bcfzip')
    // Read before the session opens: a missing file takes no license.
    const zip = await readZip(zipPath)
    return withSession(
      url,
      async (tessera) => {
        const report = await tessera.files.importBcf(fileId, zip)
        if (values.json) return out(JSON.stringify(report, null, 2))
        for (const line of summary(report)) out(line)
      },
      choice,
    )
  }
  throw new ClientUsageError(`unknown bcf action ${action ?? ''} (export or import)`)
}

/**
 * Writes the export to `output`: `-` is stdout; a directory gets the server's name in it; nothing
 * given, the server's name (`<file name>.bcfzip`) here. Written beside the target and renamed, so a
 * failed write leaves no half file.
 */
async function exportTo({ bytes, filename }: BcfExport, output: string | undefined): Promise<void> {
  if (output === '-') {
    await new Promise<void>((resolve, reject) =>
      process.stdout.write(bytes, (error) => (error ? reject(error) : resolve())),
    )
    return
  }
  const target =
    output === undefined ? filename : (await isDirectory(output)) ? path.join(output, filename) : output
  const partial = `${target}.part`
  try {
    await writeFile(partial, bytes)
    await rename(partial, target)
  } catch (error) {
    await rm(partial, { force: true })
    throw error
  }
  process.stderr.write(`saved ${target} (${formatBytes(bytes.byteLength)})\n`)
}

async function isDirectory(where: string): Promise<boolean> {
  return (await stat(where).catch(() => undefined))?.isDirectory() === true
}

/** The zip's bytes: a path, or `-` for stdin (so an export can be piped into an import). */
async function readZip(where: string): Promise<Uint8Array> {
  try {
    if (where !== '-') return await readFile(where)
    const chunks: Buffer[] = []
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks)
  } catch (error) {
    throw new ClientFailure(`cannot read ${where}: ${(error as Error).message}`)
  }
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}

/** The import's report for people: what was made, what was skipped, what the model lacks. */
export function summary(report: BcfImport): string[] {
  const lines = [
    `BCF ${report.version}: ${count(report.topics, 'topic')} → ${count(report.annotations.length, 'annotation')}, ` +
      `${count(report.configurations.length, 'saved view')}, ${count(report.comments, 'comment')} added; ` +
      `${report.unchanged} unchanged (held already, nothing new)`,
  ]
  const unknown = report.unknownComponents
  if (unknown.length > 0) {
    const more = unknown.length > UNKNOWN_SHOWN ? ` and ${unknown.length - UNKNOWN_SHOWN} more` : ''
    lines.push(
      `${count(unknown.length, 'GlobalId')} not in this model: ${unknown.slice(0, UNKNOWN_SHOWN).join(', ')}${more}`,
    )
  }
  for (const note of report.notes) lines.push(`note: ${note}`)
  return lines
}

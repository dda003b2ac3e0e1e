// The client commands of `tessera` (login, upload, ls, download, listen, trigger, webhooks): they
// talk to a running instance through @tessera/client, unlike the admin commands in main.ts, which
// open the database. parseArgs, like main.ts: commander 14 is not what this tree resolves.
import { createWriteStream } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import { Tessera, TesseraError } from '@tessera/client'
import { toNodeStream } from '@tessera/client/node'
import {
  ClientFailure,
  ClientUsageError,
  parse,
  plainAuthToken,
  readPassword,
  resolveUrl,
  storeToken,
  withSession,
} from './credentials.ts'
import { HELP } from './help.ts'
import { listen } from './listen.ts'
import { barRenderer, formatBytes, lineRenderer, uploadFiles } from './upload.ts'
import { trigger, webhooksCommand } from './webhook-commands.ts'

function out(line: string): void {
  process.stdout.write(`${line}\n`)
}

async function login(args: string[]): Promise<void> {
  const { values } = parse(args, { username: { type: 'string', short: 'u' } })
  const url = resolveUrl(values.url)
  const username = values.username ?? process.env.TESSERA_USERNAME
  if (!username) throw new ClientUsageError('login needs --username (or TESSERA_USERNAME)')
  const password = await readPassword()
  if (!password) throw new ClientUsageError('no password given')
  const tessera = await Tessera.connect({ url, username, password, keepAlive: false })
  await tessera.close().catch(() => undefined)
  const file = await storeToken(url, username, tessera.authToken)
  out(`Logged in to ${url} as ${username}; token stored in ${file}`)
}

async function upload(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { parent: { type: 'string' }, wait: { type: 'boolean' } })
  if (positionals.length === 0) throw new ClientUsageError('upload needs at least one file')
  const render = process.stdout.isTTY ? barRenderer(process.stdout) : lineRenderer(out)
  const options = { parent: values.parent ?? '/', wait: values.wait === true }
  return withSession(resolveUrl(values.url), (tessera) => uploadFiles(tessera, positionals, options, render))
}

async function ls(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, { shared: { type: 'boolean' }, json: { type: 'boolean' } })
  if (positionals.length > 1) throw new ClientUsageError('ls takes one directory')
  await withSession(resolveUrl(values.url), async (tessera) => {
    const directory = positionals[0] ?? '/'
    const files = values.shared ? await sharedFiles(tessera) : await tessera.files.list(directory)
    if (values.json) return out(JSON.stringify(files, null, 2))
    if (!values.shared) {
      // The folders come with a listing's first page; one file is enough of it.
      const { folders = [] } = await tessera.files.folder(`/${directory.replace(/^\/+|\/+$/g, '')}`, {
        limit: 1,
      })
      for (const folder of folders) out(folderLine(folder))
    }
    for (const f of files) {
      out([f._id, f.state.padEnd(10), formatBytes(f.size).padStart(10), f.updated, f.key].join('  '))
    }
  })
}

/** A sub-folder, in the columns of a file line: where the ID, state and size go, its file count. */
function folderLine(folder: { path: string; files: number }): string {
  const count = `${folder.files} file${folder.files === 1 ? '' : 's'}`
  return ['folder'.padEnd(24), ''.padEnd(10), count.padStart(10), ''.padEnd(24), `${folder.path}/`].join('  ')
}

/** Every file other accounts shared with the caller, all pages followed. */
async function sharedFiles(tessera: Tessera) {
  const files: Awaited<ReturnType<Tessera['files']['shared']>>['files'] = []
  let cursor: string | undefined
  do {
    const page = await tessera.files.shared(cursor === undefined ? {} : { cursor })
    files.push(...page.files)
    cursor = page.nextCursor ?? undefined
  } while (cursor !== undefined)
  return files
}

async function download(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, {
    optimized: { type: 'boolean' },
    output: { type: 'string', short: 'o' },
  })
  const [id, extra] = positionals
  if (!id || extra !== undefined) throw new ClientUsageError('download needs one file ID')
  await withSession(resolveUrl(values.url), async (tessera) => {
    let output = values.output
    if (!output) {
      const name = path.basename((await tessera.files.get(id)).name)
      output = values.optimized ? `${name.replace(/\.[^.]*$/, '')}.glb` : name
    }
    const body = values.optimized
      ? await tessera.files.downloadOptimized(id)
      : await tessera.files.download(id)
    if (output === '-') return pipeline(toNodeStream(body), process.stdout)
    // Written beside the target, renamed when complete: an interrupted download leaves no half file.
    const partial = `${output}.part`
    try {
      await pipeline(toNodeStream(body), createWriteStream(partial))
      await rename(partial, output)
    } catch (error) {
      await rm(partial, { force: true })
      throw error
    }
    process.stderr.write(`saved ${output}\n`)
  })
}

async function listenCommand(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, {
    events: { type: 'string' },
    'forward-to': { type: 'string' },
  })
  if (positionals.length > 0) throw new ClientUsageError('listen takes no arguments')
  const url = resolveUrl(values.url)
  const forwardTo = values['forward-to']
  // Validated like --url, but sent to exactly as given (a trailing slash can matter to a router).
  if (forwardTo !== undefined) resolveUrl(forwardTo, '--forward-to')
  const controller = new AbortController()
  const stop = () => controller.abort()
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  await listen({
    url,
    authToken: await plainAuthToken(url),
    ...(values.events ? { events: values.events } : {}),
    ...(forwardTo ? { forwardTo } : {}),
    signal: controller.signal,
    write: out,
  })
}

const COMMANDS: Record<string, (args: string[]) => Promise<unknown>> = {
  login,
  upload,
  ls,
  download,
  listen: listenCommand,
  trigger,
  webhooks: webhooksCommand,
}

// client-names.ts lists the same names for main.ts; a test checks that the two agree.
export const CLIENT_COMMAND_NAMES = Object.keys(COMMANDS)

/** Runs one client command; answers the exit code. */
export async function runClientCommand(argv: string[]): Promise<number> {
  const [command = '', ...args] = argv
  const run = COMMANDS[command]
  if (!run) throw new ClientUsageError(`unknown command ${command}`)
  if (args.includes('--help') || args.includes('-h')) {
    out(HELP[command] ?? '')
    return 0
  }
  try {
    const code = await run(args)
    return typeof code === 'number' ? code : 0
  } catch (error) {
    if (error instanceof ClientUsageError) {
      process.stderr.write(`tessera: ${error.message}\n\n${HELP[command] ?? ''}\n`)
      return 2
    }
    if (error instanceof ClientFailure) {
      process.stderr.write(`tessera: ${error.message}\n`)
      return 1
    }
    if (error instanceof TesseraError) {
      const detail = error.detail ? `: ${error.detail}` : ''
      process.stderr.write(`tessera: ${error.code}${detail} (HTTP ${error.status})\n`)
      return 1
    }
    throw error
  }
}

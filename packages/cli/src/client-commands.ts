// The client commands of `tessera` (login, upload, ls, download, props, search, find, bcf, listen,
// trigger, webhooks, link): they talk to a running instance through @tessera/client (the server's
// admin commands are tessera-server's, server-commands.ts). parseArgs: commander 14 is not what this
// tree resolves.
import { createWriteStream } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import { Tessera, unwrap } from '@tessera/client'
import { toNodeStream } from '@tessera/client/node'
import { bcfCommand } from './bcf-commands.ts'
import {
  ClientUsageError,
  parse,
  readPassword,
  resolveUrl,
  storeToken,
  tokenClient,
  withSession,
} from './credentials.ts'
import { reportFailure } from './failures.ts'
import { HELP } from './help.ts'
import { linkCommand } from './link-commands.ts'
import { listen } from './listen.ts'
import { find, props, search } from './scene-commands.ts'
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
  // The auth token is all a login needs: no session, so the account's other one (a backend's) lives on.
  const tessera = await Tessera.connect({ url, username, password, session: false })
  const file = await storeToken(url, username, tessera.authToken)
  out(`Logged in to ${url} as ${username}; token stored in ${file}`)
}

async function upload(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    parent: { type: 'string' },
    wait: { type: 'boolean' },
    ...KEEP_SESSION,
  })
  if (positionals.length === 0) throw new ClientUsageError('upload needs at least one file')
  const render = process.stdout.isTTY ? barRenderer(process.stdout) : lineRenderer(out)
  const options = { parent: values.parent ?? '/', wait: values.wait === true }
  return withSession(
    resolveUrl(values.url),
    (tessera) => uploadFiles(tessera, positionals, options, render),
    sessionChoice(values),
  )
}

async function ls(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, {
    shared: { type: 'boolean' },
    favourites: { type: 'boolean' },
    json: { type: 'boolean' },
    ...KEEP_SESSION,
  })
  if (positionals.length > 1) throw new ClientUsageError('ls takes one directory')
  if (values.shared && values.favourites)
    throw new ClientUsageError('ls takes --shared or --favourites, not both')
  if ((values.shared || values.favourites) && positionals.length > 0) {
    throw new ClientUsageError('ls --shared and --favourites take no directory')
  }
  await withSession(resolveUrl(values.url), listing(values, positionals[0] ?? '/'), sessionChoice(values))
}

interface ListingFlags {
  shared?: boolean | undefined
  favourites?: boolean | undefined
  json?: boolean | undefined
}

function listing(values: ListingFlags, directory: string) {
  return async (tessera: Tessera): Promise<void> => {
    const files = values.favourites
      ? await tessera.files.listFavourites()
      : values.shared
        ? await sharedFiles(tessera)
        : await tessera.files.list(directory)
    if (values.json) return out(JSON.stringify(files, null, 2))
    if (!values.shared && !values.favourites) {
      // The folders come with a listing's first page; one file is enough of it.
      const { folders = [] } = await tessera.files.folder(`/${directory.replace(/^\/+|\/+$/g, '')}`, {
        limit: 1,
      })
      for (const folder of folders) out(folderLine(folder))
    }
    for (const f of files) {
      out([f._id, f.state.padEnd(10), formatBytes(f.size).padStart(10), f.updated, f.key].join('  '))
    }
  }
}

/** --keep-session: the upload, ls and download commands end their session unless asked not to. */
const KEEP_SESSION = { 'keep-session': { type: 'boolean' } } as const

function sessionChoice(values: { 'keep-session'?: boolean | undefined }) {
  return { keepSession: values['keep-session'] === true }
}

/** `tessera licenses`: the pool as the server sees it (GET /admin/licenses, an admin's auth token). */
async function licenses(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, { json: { type: 'boolean' } })
  if (positionals.length > 0) throw new ClientUsageError('licenses takes no arguments')
  const tessera = await tokenClient(resolveUrl(values.url))
  const usage = await unwrap(tessera.api.GET('/admin/licenses'))
  if (values.json) return out(JSON.stringify(usage, null, 2))
  out(`${usage.inUse} of ${usage.total} licenses in use`)
  for (const s of usage.sessions) out(`  ${s.username}\tsince ${s.created}\tvalid until ${s.validUntil}`)
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
    ...KEEP_SESSION,
  })
  const [id, extra] = positionals
  if (!id || extra !== undefined) throw new ClientUsageError('download needs one file ID')
  await withSession(
    resolveUrl(values.url),
    async (tessera) => {
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
    },
    sessionChoice(values),
  )
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
    authToken: (await tokenClient(url)).authToken,
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
  props,
  search,
  find,
  bcf: bcfCommand,
  listen: listenCommand,
  trigger,
  webhooks: webhooksCommand,
  link: linkCommand,
  licenses,
}

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
    return reportFailure(error, args)
  }
}

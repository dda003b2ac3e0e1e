// Where the client commands find the instance and the caller: --url / TESSERA_URL, and the auth
// token `tessera login` stored in the user's config dir (or TESSERA_USERNAME/TESSERA_PASSWORD).
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { type ParseArgsConfig, parseArgs } from 'node:util'
import passwordPrompt from '@inquirer/password'
import { NoLicenseAvailableError, Tessera } from '@tessera/client'

const DEFAULT_URL = 'http://127.0.0.1:8080'

/** A problem the user can fix (bad arguments, not logged in): printed without a stack, exit 2. */
export class ClientUsageError extends Error {}

/** A failure the user should read (no webhook for an event, …): printed without help, exit 1. */
export class ClientFailure extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>

/** parseArgs with --url and --help on every command; unknown options are usage errors. */
export function parse<O extends Options>(args: string[], options: O) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: { ...options, url: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    })
  } catch (error) {
    throw new ClientUsageError((error as Error).message)
  }
}

/** The instance's base URL without a trailing slash. */
export function resolveUrl(option: string | undefined, name = '--url'): string {
  const raw = option ?? process.env.TESSERA_URL ?? DEFAULT_URL
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ClientUsageError(`${name}: not a URL: ${raw}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ClientUsageError(`${name} must be http(s): ${raw}`)
  return url.toString().replace(/\/+$/, '')
}

function credentialsPath(): string {
  const base = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config')
  return path.join(base, 'tessera', 'credentials.json')
}

interface StoredCredentials {
  /** Keyed by instance URL, so one user can be logged in to several instances. */
  instances: Record<string, { username: string; authToken: string; savedAt: string }>
}

async function readStored(): Promise<StoredCredentials> {
  try {
    const parsed = JSON.parse(await readFile(credentialsPath(), 'utf8')) as Partial<StoredCredentials>
    return { instances: parsed.instances ?? {} }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { instances: {} }
    throw new ClientUsageError(`cannot read ${credentialsPath()}: ${(error as Error).message}`)
  }
}

/** Writes the token: the dir 0700 and the file 0600 (it is a bearer credential), atomically. */
export async function storeToken(url: string, username: string, authToken: string): Promise<string> {
  const file = credentialsPath()
  const dir = path.dirname(file)
  await mkdir(dir, { recursive: true, mode: 0o700 })
  await chmod(dir, 0o700)
  const stored = await readStored()
  stored.instances[url] = { username, authToken, savedAt: new Date().toISOString() }
  const temporary = `${file}.${process.pid}.tmp`
  await writeFile(temporary, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 })
  await chmod(temporary, 0o600)
  await rename(temporary, file)
  return file
}

/** The first line of stdin (a piped password), at most 4 KiB. */
async function readLine(stream: NodeJS.ReadableStream): Promise<string> {
  let text = ''
  for await (const chunk of stream) {
    text += String(chunk)
    const end = text.indexOf('\n')
    if (end >= 0) return text.slice(0, end).replace(/\r$/, '')
    if (text.length > 4096) throw new ClientUsageError('the password line is longer than 4 KiB')
  }
  return text.replace(/\r$/, '')
}

/** A secret other than the account's password (a link's): asked on a terminal, else stdin's first line. */
export async function readSecret(message: string): Promise<string> {
  if (process.stdin.isTTY) return passwordPrompt({ message, mask: true })
  return readLine(process.stdin)
}

/** The password: TESSERA_PASSWORD, else asked on a terminal, else stdin's first line; never an argument. */
export async function readPassword(): Promise<string> {
  if (process.env.TESSERA_PASSWORD) return process.env.TESSERA_PASSWORD
  if (process.stdin.isTTY) return passwordPrompt({ message: 'Password:', mask: true })
  return readLine(process.stdin)
}

/** The auth token to use: from TESSERA_USERNAME/TESSERA_PASSWORD (a fresh login), else the stored one. */
async function authTokenFor(
  url: string,
): Promise<{ authToken: string } | { username: string; password: string }> {
  const username = process.env.TESSERA_USERNAME
  const password = process.env.TESSERA_PASSWORD
  if (username && password) return { username, password }
  const stored = (await readStored()).instances[url]
  if (!stored) throw new ClientFailure(`not logged in to ${url}: run 'tessera login --username U' first`)
  return { authToken: stored.authToken }
}

/**
 * Only the auth token: no session, so no license is taken and the account's other session (a
 * backend's, a browser's) is left alone. For the commands whose routes need no session.
 */
export async function tokenClient(url: string): Promise<Tessera> {
  return Tessera.connect({ url, ...(await authTokenFor(url)), session: false })
}

export interface SessionChoice {
  /** Leave the session open at exit (it holds its license until it expires or is superseded). */
  keepSession?: boolean
}

/**
 * Opens a session for one command and ends it at once afterwards (POST /account/logout), also when
 * the command fails: its license is free when the command returns, not after the deletion delay.
 * Opening a session supersedes the account's other session; the server says so and so does stderr.
 */
export async function withSession<T>(
  url: string,
  fn: (tessera: Tessera) => Promise<T>,
  choice: SessionChoice = {},
): Promise<T> {
  const tessera = await openSession(url)
  if (tessera.supersededSession) {
    process.stderr.write(
      'tessera: note: this took over your other session (a script, a browser tab): it is signed out\n',
    )
  }
  try {
    return await fn(tessera)
  } finally {
    if (choice.keepSession) {
      tessera.stopKeepAlive()
      const until = tessera.expiresAt?.toISOString() ?? 'it expires'
      process.stderr.write(`tessera: the session stays open (--keep-session) until ${until}\n`)
    } else await tessera.logout().catch(() => undefined)
  }
}

async function openSession(url: string): Promise<Tessera> {
  try {
    return await Tessera.connect({ url, ...(await authTokenFor(url)) })
  } catch (error) {
    if (error instanceof NoLicenseAvailableError) {
      throw new ClientFailure(
        `no license is free on ${url} (${error.detail}): this command needs a session. Wait until one ` +
          "ends or ask an administrator ('tessera licenses' shows who holds them); webhooks, trigger " +
          'and listen need no license',
      )
    }
    throw error
  }
}

// `tessera link create|rotate|revoke|show FILE`: share a file by link (docs/api.md, "Links"); `tessera
// link live-meetings FILE on|off`: whether the link's visitors may join the file's live sessions. The
// link's routes need a session, so each run takes one license for its duration (withSession).
import type { Tessera } from '@tessera/client'
import { ClientUsageError, parse, readSecret, resolveUrl, withSession } from './credentials.ts'

function out(line: string): void {
  process.stdout.write(`${line}\n`)
}

type LinkSettings = Awaited<ReturnType<Tessera['links']['get']>>

function describe(link: LinkSettings): string {
  const expiry = link.expiresAt
    ? `expires ${link.expiresAt}${link.expired ? ' (expired)' : ''}`
    : 'never expires'
  return `link ${link.id} of file ${link.fileId}: ${expiry}, ${link.hasPassword ? 'password' : 'no password'}`
}

/** The console's address of a link: the console is served by the instance itself. */
function linkUrl(url: string, token: string): string {
  return `${url.replace(/\/+$/, '')}/#/link/${token}`
}

export async function linkCommand(args: string[]): Promise<void> {
  const [action, ...rest] = args
  const { values, positionals } = parse(rest, {
    expires: { type: 'string' },
    password: { type: 'boolean' },
    json: { type: 'boolean' },
  })
  const [fileId, extra] = positionals
  const url = resolveUrl(values.url)
  if (action === 'live-meetings') return liveMeetings(url, fileId, extra, positionals.length)
  if (!fileId || extra !== undefined) throw new ClientUsageError(`link ${action ?? ''} needs one file ID`)
  const shown = (created: { link: LinkSettings; token: string | null }) => {
    if (values.json)
      return out(JSON.stringify({ ...created, url: created.token && linkUrl(url, created.token) }, null, 2))
    out(describe(created.link))
    if (created.token) out(linkUrl(url, created.token))
    process.stderr.write('tessera: the link is shown only now; rotate it to get a new one\n')
  }
  if (action === 'create') {
    const password = values.password ? await readSecret('Link password:') : undefined
    if (values.password && !password) throw new ClientUsageError('no link password given')
    const input = {
      ...(values.expires ? { expiresAt: values.expires } : {}),
      ...(password ? { password } : {}),
    }
    return withSession(url, async (tessera) => shown(await tessera.links.create(fileId, input)))
  }
  if (action === 'rotate')
    return withSession(url, async (tessera) => shown(await tessera.links.rotate(fileId)))
  if (action === 'revoke') {
    return withSession(url, async (tessera) => {
      await tessera.links.revoke(fileId)
      out(`revoked the link of file ${fileId}: it no longer opens, and its guests are cut off`)
    })
  }
  if (action === 'show') {
    return withSession(url, async (tessera) => {
      const link = await tessera.links.get(fileId)
      out(values.json ? JSON.stringify(link, null, 2) : describe(link))
    })
  }
  throw new ClientUsageError(`unknown link action ${action ?? ''}`)
}

/** `link live-meetings FILE on|off` (owner only): PUT /file/:id/live-meetings. */
async function liveMeetings(
  url: string,
  fileId: string | undefined,
  state: string | undefined,
  count: number,
) {
  if (!fileId || (state !== 'on' && state !== 'off') || count !== 2)
    throw new ClientUsageError('link live-meetings needs a file ID and on or off')
  return withSession(url, async (tessera) => {
    await tessera.files.setLiveMeetings(fileId, state === 'on')
    out(
      state === 'on'
        ? `visitors with the link of file ${fileId} may join its live sessions`
        : `visitors with the link of file ${fileId} may no longer join its live sessions; those in one were closed`,
    )
  })
}

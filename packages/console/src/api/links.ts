// Share by link: the owner's calls on a file's link (tessera.links), and opening a link as a guest
// (TesseraLink: read-only, no account, no license), which then serves the viewer's reads
// (connection.reader). docs/api.md, "Links".
import { type CreatedLink, type LinkInput, type LinkSettings, TesseraLink } from '@tessera/client'
import { ApiError, type Connection } from './connection.ts'

export type { CreatedLink, LinkSettings }

/** The console's address of a link: its token in the fragment, which no request carries (logs, Referer). */
export function linkUrl(origin: string, token: string): string {
  return `${origin}/#/link/${token}`
}

export class Links {
  readonly #connection: Connection

  constructor(connection: Connection) {
    this.#connection = connection
  }

  /** The file's link, or null when it has none. */
  async get(fileId: string): Promise<LinkSettings | null> {
    try {
      return await this.#connection.signedIn.links.get(fileId)
    } catch (error) {
      if (error instanceof ApiError && error.code === 'LINK_NOT_FOUND') return null
      throw error
    }
  }

  create(fileId: string, input: LinkInput): Promise<CreatedLink> {
    return this.#connection.signedIn.links.create(fileId, input)
  }

  rotate(fileId: string): Promise<CreatedLink> {
    return this.#connection.signedIn.links.rotate(fileId)
  }

  revoke(fileId: string): Promise<void> {
    return this.#connection.signedIn.links.revoke(fileId)
  }

  /** Opens a link as a guest; the viewer's reads then go through it. Throws the server's refusal. */
  async open(
    token: string,
    password: string | undefined,
    onLost: (error: ApiError) => void,
  ): Promise<TesseraLink> {
    const guest = await TesseraLink.open({
      url: this.#connection.url,
      token,
      ...(password ? { password } : {}),
      // The SDK sends no cookies for it (credentials: omit): an account signed in here stays apart.
      onLinkLost: onLost,
    })
    this.#connection.guest?.close()
    this.#connection.guest = guest
    return guest
  }
}

// E-mail access lists, as file items (annotation and configuration records) carry them (`readPermissions`,
// `writePermissions`, the annotation's `permissions` arrays). An entry is an account e-mail or "*".
// An empty list restricts nothing: everyone whose file role allows the action may do it. A non-empty
// list admits "*" (everyone with access to the file) or the e-mails it names. Records' authors and the
// file's owner bypass the lists entirely; callers check that before asking here.

const EVERYONE = '*'

/** Lower-cased (account e-mails are stored lower-case), trimmed, without duplicates, order kept. */
export function normalizeAccessList(list: readonly string[]): string[] {
  return [...new Set(list.map((entry) => entry.trim().toLowerCase()))]
}

export function listAllows(list: readonly string[], email: string): boolean {
  if (list.length === 0) return true
  const wanted = email.toLowerCase()
  // A caller without an e-mail (a link's guest) is admitted only by "*": never by an empty entry.
  return list.some((entry) => entry === EVERYONE || (entry === wanted && wanted !== ''))
}

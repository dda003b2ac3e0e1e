// Server-side request forgery guard for webhook targets.
//
// A webhook URL is user input that makes the server open a connection, so a URL must never reach
// loopback, private networks, cloud metadata (169.254.169.254) or any other non-public address.
// Host names are resolved here (not by the HTTP client) and every answer is classified: if ANY
// answer is non-public the target is refused, because the client could otherwise be steered to
// it. The caller then connects to exactly the returned address, so a second DNS answer
// (DNS rebinding) never decides where the socket goes.

import { promises as dns } from 'node:dns'
import { BlockList, isIP } from 'node:net'
import type { AttemptErrorCode } from '../contract/index.ts'

/** Why an address is not a public unicast address. */
type RefusalReason =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'cgnat'
  | 'link-local'
  | 'unique-local'
  | 'site-local'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'benchmark'
  | 'documentation'
  | 'ipv4-mapped'
  | 'nat64-local'
  | 'not-an-ip'

export type AddressClass = 'public' | RefusalReason

export type TargetRefusedCode = Extract<AttemptErrorCode, 'E_SSRF' | 'E_DNS'>

/** A webhook target that must not be contacted. `message` is safe to show the webhook owner. */
export class TargetRefused extends Error {
  readonly code: TargetRefusedCode
  constructor(code: TargetRefusedCode, message: string) {
    super(message)
    this.name = 'TargetRefused'
    this.code = code
  }
}

interface ResolvedAddress {
  address: string
  family: number
}

/** Resolves every address of a host name; injectable so tests can simulate hostile DNS. */
export type LookupAll = (hostname: string) => Promise<ResolvedAddress[]>

export interface VetOptions {
  allowPrivate: boolean
  lookup?: LookupAll
}

export interface VettedTarget {
  url: URL
  address: string
  family: 4 | 6
}

type Rule = readonly [prefix: string, bits: number, reason: RefusalReason]

// IANA special-purpose registries, ordered so the most specific reason wins (broadcast is inside
// 240/4). Only ranges that are not globally reachable are listed.
const V4_RULES: readonly Rule[] = [
  ['255.255.255.255', 32, 'broadcast'],
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmark'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
]

// Native IPv6 ranges. Embedding prefixes (::ffff:0:0/96, 64:ff9b::/96, 2002::/16, Teredo) are
// handled in code because their verdict depends on the embedded IPv4 address.
const V6_RULES: readonly Rule[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'reserved'], // deprecated IPv4-compatible addresses
  ['64:ff9b:1::', 48, 'nat64-local'],
  ['100::', 64, 'reserved'], // discard-only
  ['2001:2::', 48, 'benchmark'],
  ['2001:10::', 28, 'reserved'], // ORCHID
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['5f00::', 16, 'reserved'], // SRv6 segment identifiers
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
]

// One BlockList per rule keeps Node's well-tested prefix matching and still tells us which rule hit.
function compile(rules: readonly Rule[], type: 'ipv4' | 'ipv6'): Array<[BlockList, RefusalReason]> {
  return rules.map(([prefix, bits, reason]) => {
    const list = new BlockList()
    list.addSubnet(prefix, bits, type)
    return [list, reason]
  })
}

const V4_LISTS = compile(V4_RULES, 'ipv4')
const V6_LISTS = compile(V6_RULES, 'ipv6')

function classifyV4(ip: string): AddressClass {
  for (const [list, reason] of V4_LISTS) if (list.check(ip, 'ipv4')) return reason
  return 'public'
}

/** Parses an IPv6 literal (zone id stripped) into 8 16-bit groups, or null. */
function parseV6(ip: string): number[] | null {
  const text = ip.split('%')[0] ?? ''
  const halves = text.split('::')
  if (halves.length > 2) return null
  const toGroups = (part: string): number[] | null => {
    if (part === '') return []
    const groups: number[] = []
    for (const piece of part.split(':')) {
      if (piece.includes('.')) {
        const v4 = piece.split('.').map(Number)
        if (isIP(piece) !== 4) return null
        const [a = 0, b = 0, c = 0, d = 0] = v4
        groups.push((a << 8) | b, (c << 8) | d)
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) {
        groups.push(Number.parseInt(piece, 16))
      } else {
        return null
      }
    }
    return groups
  }
  const head = toGroups(halves[0] ?? '')
  const tail = halves.length === 2 ? toGroups(halves[1] ?? '') : []
  if (!head || !tail) return null
  const missing = 8 - head.length - tail.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null
  return [...head, ...new Array<number>(missing).fill(0), ...tail]
}

function v4From(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`
}

function classifyV6(ip: string): AddressClass {
  const g = parseV6(ip)
  if (!g) return 'not-an-ip'
  const at = (i: number): number => g[i] ?? 0
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0)

  // ::ffff:a.b.c.d reaches the IPv4 host on dual-stack sockets. Report the embedded address's
  // reason when it has one; a public embedded address is still refused, because no legitimate
  // webhook URL needs this spelling and it is a classic filter bypass.
  if (zeros(0, 5) && at(5) === 0xffff) {
    const inner = classifyV4(v4From(at(6), at(7)))
    return inner === 'public' ? 'ipv4-mapped' : inner
  }
  // NAT64 well-known prefix (64:ff9b::/96), 6to4 (2002::/16) and Teredo (2001::/32) carry an IPv4
  // address that a translator or relay will connect to, so the embedded address decides.
  if (at(0) === 0x64 && at(1) === 0xff9b && zeros(2, 6)) return classifyV4(v4From(at(6), at(7)))
  if (at(0) === 0x2002) return classifyV4(v4From(at(1), at(2)))
  if (at(0) === 0x2001 && at(1) === 0) {
    // Teredo stores the client address inverted in the last 32 bits; the server is at bits 32-63.
    const client = classifyV4(v4From(at(6) ^ 0xffff, at(7) ^ 0xffff))
    return client === 'public' ? classifyV4(v4From(at(2), at(3))) : client
  }

  for (const [list, reason] of V6_LISTS) if (list.check(ip.split('%')[0] ?? '', 'ipv6')) return reason
  // Only 2000::/3 is allocated for global unicast; everything else is unassigned or special.
  if ((at(0) & 0xe000) !== 0x2000) return 'reserved'
  return 'public'
}

// Verdicts are a pure function of the text and every attempt asks again (BlockList.check builds
// SocketAddress objects: the costliest step of an attempt after the socket write), so the
// verdicts of recent addresses are kept. Bounded: a flood of distinct addresses only evicts.
const VERDICTS_KEPT = 4096
const verdicts = new Map<string, AddressClass>()

/** Classifies an IP literal: 'public' or the reason it must not be contacted. */
export function classifyAddress(ip: string): AddressClass {
  let verdict = verdicts.get(ip)
  if (verdict === undefined) {
    const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip
    const family = isIP(bare.split('%')[0] ?? '')
    verdict = family === 4 ? classifyV4(bare) : family === 6 ? classifyV6(bare) : 'not-an-ip'
    if (verdicts.size >= VERDICTS_KEPT) verdicts.clear()
    verdicts.set(ip, verdict)
  }
  return verdict
}

const systemLookup: LookupAll = async (hostname) => {
  const answers = await dns.lookup(hostname, { all: true })
  return answers.map(({ address, family }) => ({ address, family }))
}

function refusedMessage(reason: RefusalReason): string {
  // The address itself is left out: echoing resolved internal addresses would turn webhook
  // registration into a DNS oracle for the server's network.
  return `target address is not publicly routable (${reason})`
}

function toFamily(address: string): 4 | 6 {
  return isIP(address) === 6 ? 6 : 4
}

/**
 * Checks a webhook URL and resolves its host. Resolves to the address the caller must connect to;
 * rejects with TargetRefused (E_SSRF for a forbidden target, E_DNS when the name does not resolve).
 */
export async function vetUrl(raw: string, opts: VetOptions): Promise<VettedTarget> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new TargetRefused('E_SSRF', 'target is not an absolute URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TargetRefused('E_SSRF', 'target must use http or https')
  }
  if (url.username !== '' || url.password !== '') {
    throw new TargetRefused('E_SSRF', 'target must not contain credentials')
  }

  // WHATWG URL already turned 2130706433, 0x7f.1 and 017700000001 into dotted quads and
  // compressed IPv6 literals, so literals are recognised here in every spelling.
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  if (host === '') throw new TargetRefused('E_SSRF', 'target has no host')
  const { address, family } = await vetHost(host, opts)
  return { url, address, family }
}

/**
 * Classifies an IP literal or resolves a host name and classifies every answer. Resolves to the
 * single address to connect to. Also used by the delivery agent's connect-time lookup.
 */
export async function vetHost(host: string, opts: VetOptions): Promise<{ address: string; family: 4 | 6 }> {
  if (isIP(host) !== 0) {
    const verdict = classifyAddress(host)
    if (verdict !== 'public' && !opts.allowPrivate) throw new TargetRefused('E_SSRF', refusedMessage(verdict))
    return { address: host, family: toFamily(host) }
  }

  let answers: ResolvedAddress[]
  try {
    answers = await (opts.lookup ?? systemLookup)(host)
  } catch {
    throw new TargetRefused('E_DNS', 'target host name could not be resolved')
  }
  const first = answers[0]
  if (!first) throw new TargetRefused('E_DNS', 'target host name has no addresses')
  if (!opts.allowPrivate) {
    for (const { address } of answers) {
      const verdict = classifyAddress(address)
      if (verdict !== 'public') throw new TargetRefused('E_SSRF', refusedMessage(verdict))
    }
  }
  return { address: first.address, family: toFamily(first.address) }
}

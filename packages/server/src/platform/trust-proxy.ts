// TESSERA_TRUST_PROXY: which peers may tell Tessera, by X-Forwarded-For / -Proto / -Host, the
// client's address, the protocol and the host of the original request (Fastify's `trustProxy`,
// which feeds `request.ip`, `request.protocol` and `request.host`). Off by default: without a proxy
// in front, any client could claim any address (and so any failed-login budget) or https.
import { isIP } from 'node:net'

/** What Fastify's `trustProxy` option takes: off, every peer, a hop count, or addresses. */
export type TrustProxy = boolean | number | string[]

/** Names proxy-addr (behind Fastify's trustProxy) knows for address ranges. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal'])

function checkedAddress(entry: string): string {
  if (NAMED_RANGES.has(entry)) return entry
  const [address = '', prefix, ...rest] = entry.split('/')
  const family = isIP(address)
  const bits = family === 4 ? 32 : 128
  const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits)
  if (family === 0 || !prefixOk || rest.length > 0) {
    throw new Error(`"${entry}" is not an IP address, a CIDR range or one of ${[...NAMED_RANGES].join(', ')}`)
  }
  return entry
}

/**
 * `false`/empty: off; `true`: trust every peer (only when nothing but the proxy can reach Tessera);
 * a number N: trust the N nearest hops; else a comma-separated list of IPs, CIDR ranges and the
 * names loopback, linklocal, uniquelocal: the proxies' own addresses.
 */
export function parseTrustProxy(raw: string): TrustProxy {
  const value = raw.trim().toLowerCase()
  if (value === '' || value === 'false') return false
  if (value === 'true') return true
  if (/^\d+$/.test(value)) {
    const hops = Number(value)
    if (hops < 1 || hops > 16) throw new Error('a hop count must be 1..16')
    return hops
  }
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map(checkedAddress)
}

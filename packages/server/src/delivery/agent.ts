// Shared undici agents for webhook delivery whose sockets only ever go to vetted addresses.
//
// undici hands `connect` options to net/tls.connect, so a custom `lookup` there decides the IP the
// socket opens while the URL's host name still drives TLS SNI, certificate checks and the Host
// header. sendAttempt vets the URL and pins the answer here just before the request; the lookup
// then returns that pinned address instead of asking DNS again, which closes the DNS-rebinding
// window between check and connect. A connection opened without a fresh pin (a queued request
// outliving the pin) vets the name again itself, so no path reaches an unvetted address.
// IP-literal hosts never call lookup; they are vetted by vetUrl before the request is sent.

import type { LookupFunction } from 'node:net'
import { Agent } from 'undici'
import { vetHost } from './ssrf.ts'

interface Pin {
  address: string
  family: 4 | 6
  expires: number
}

// Long enough to cover a request waiting in the pool for a socket (bounded by the attempt
// timeout), short enough that DNS changes are honoured on the next attempt.
const PIN_TTL_MS = 60_000
const PIN_LIMIT = 10_000
const pins = new Map<string, Pin>()

// Pins are kept per policy: an address accepted with allowPrivate must never be served to the
// strict agent.
function pinKey(allowPrivate: boolean, hostname: string): string {
  return `${allowPrivate ? 'open' : 'strict'}|${hostname.toLowerCase()}`
}

/** Records the vetted address for a host name so the agent connects exactly there. */
export function pinAddress(hostname: string, allowPrivate: boolean, address: string, family: 4 | 6): void {
  const key = pinKey(allowPrivate, hostname)
  pins.delete(key) // re-insert so Map order stays oldest-first for eviction
  if (pins.size >= PIN_LIMIT) {
    const oldest = pins.keys().next()
    if (!oldest.done) pins.delete(oldest.value)
  }
  pins.set(key, { address, family, expires: Date.now() + PIN_TTL_MS })
}

function pinned(hostname: string, allowPrivate: boolean): Pin | null {
  const key = pinKey(allowPrivate, hostname)
  const pin = pins.get(key)
  if (!pin) return null
  if (pin.expires < Date.now()) {
    pins.delete(key)
    return null
  }
  return pin
}

function vettingLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    const pin = pinned(hostname, allowPrivate)
    const target = pin ? Promise.resolve(pin) : vetHost(hostname, { allowPrivate })
    target.then(
      ({ address, family }) => {
        // net.connect asks for all addresses when autoSelectFamily is on (Node 20 default).
        if (options.all) callback(null, [{ address, family }])
        else callback(null, address, family)
      },
      (err: Error) => callback(err, '', 0),
    )
  }
}

export interface DeliveryAgentOptions {
  allowPrivate: boolean
  /** Maximum sockets per origin; undefined means unlimited (concurrency is capped by the caller). */
  connections?: number
}

/** A new agent with the vetting lookup, for callers that want their own pool. */
export function createDeliveryAgent(opts: DeliveryAgentOptions): Agent {
  return new Agent({
    connect: { lookup: vettingLookup(opts.allowPrivate) },
    ...(opts.connections === undefined ? {} : { connections: opts.connections }),
  })
}

const shared = new Map<boolean, Agent>()

/** The process-wide delivery agent for a policy, created on first use. */
export function deliveryAgent(allowPrivate: boolean): Agent {
  let agent = shared.get(allowPrivate)
  if (!agent) {
    agent = createDeliveryAgent({ allowPrivate })
    shared.set(allowPrivate, agent)
  }
  return agent
}

/** Closes the shared agents (graceful shutdown, test teardown). */
export async function closeDeliveryAgents(): Promise<void> {
  const agents = [...shared.values()]
  shared.clear()
  pins.clear()
  await Promise.all(agents.map((agent) => agent.close()))
}

// Rate limits said in headers (docs/api.md, "Rate limits"): the IETF httpapi draft "RateLimit header
// fields for HTTP" (draft-ietf-httpapi-ratelimit-headers), whose fields are RFC 8941/9651
// structured-field lists of named policies:
//   RateLimit-Policy: "webhook-manage";q=30;w=60   quota q per window w (seconds)
//   RateLimit: "webhook-manage";r=12;t=41          r units left, t seconds until one comes back
// Any limiter calls `rateLimitFields` for the state it just computed and sets the fields on every
// answer of its routes; a 429 carries them too, with Retry-After.
import type { FastifyReply } from 'fastify'

export interface RateLimitState {
  /** The policy's name, a token of lowercase letters, digits and `-` (it is quoted anyway). */
  policy: string
  /** Units the window allows. */
  quota: number
  windowSeconds: number
  /** Units left now (0 when refused). */
  remaining: number
  /** Seconds until the next unit is available again (the whole quota, for a fixed window). */
  resetSeconds: number
}

/** The two header fields of `state`, lowercase names. */
export function rateLimitFields(state: RateLimitState): Record<'ratelimit-policy' | 'ratelimit', string> {
  return rateLimitListFields([state])
}

/**
 * The two fields of a route limited by several policies at once (login: per name and client, per
 * name, per client): each field is the list of its policies' items, in the order given.
 */
export function rateLimitListFields(
  states: readonly RateLimitState[],
): Record<'ratelimit-policy' | 'ratelimit', string> {
  const whole = (n: number) => Math.max(0, Math.ceil(n))
  const name = (state: RateLimitState) => `"${state.policy.replaceAll(/["\\]/g, '')}"`
  return {
    'ratelimit-policy': states
      .map((state) => `${name(state)};q=${whole(state.quota)};w=${whole(state.windowSeconds)}`)
      .join(', '),
    ratelimit: states
      .map((state) => `${name(state)};r=${whole(state.remaining)};t=${whole(state.resetSeconds)}`)
      .join(', '),
  }
}

/** The fields of a refusal: the two above with r=0, and Retry-After (seconds, at least 1). */
export function rateLimitRefusal(state: Omit<RateLimitState, 'remaining'>): Record<string, string> {
  const retryAfter = Math.max(1, Math.ceil(state.resetSeconds))
  return {
    ...rateLimitFields({ ...state, remaining: 0, resetSeconds: retryAfter }),
    'retry-after': String(retryAfter),
  }
}

/** Sets the fields of `state` on `reply`. */
export function sayRateLimit(reply: FastifyReply, state: RateLimitState): void {
  for (const [name, value] of Object.entries(rateLimitFields(state))) reply.header(name, value)
}

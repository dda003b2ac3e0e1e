// Authentication of webhook deliveries: the spec's `x-service-token` (a bcrypt hash of the
// webhook's secretToken) plus Standard Webhooks signatures, which, unlike the bcrypt header,
// bind the secret to this exact body and time and so resist replay and tampering.

import { createHmac } from 'node:crypto'
import { hash } from '@node-rs/bcrypt'

export interface SignatureInput {
  /** Stable across retries of one delivery so receivers can dedupe. */
  msgId: string
  timestampSec: number
  body: string
  /** Current secret first; during a rotation the previous one too, so old receivers still verify. */
  secrets: string[]
}

export interface SignatureHeaders {
  'webhook-id': string
  'webhook-timestamp': string
  'webhook-signature': string
}

/**
 * Standard Webhooks headers. The HMAC key is the secret's UTF-8 bytes, so a Standard Webhooks
 * library verifies with `whsec_` + base64(secret).
 */
export function signatureHeaders(input: SignatureInput): SignatureHeaders {
  if (input.secrets.length === 0) throw new Error('signatureHeaders needs at least one secret')
  if (!Number.isSafeInteger(input.timestampSec)) throw new Error('timestampSec must be an integer')
  const signed = `${input.msgId}.${input.timestampSec}.${input.body}`
  const signatures = input.secrets.map(
    (secret) => `v1,${createHmac('sha256', Buffer.from(secret, 'utf8')).update(signed).digest('base64')}`,
  )
  return {
    'webhook-id': input.msgId,
    'webhook-timestamp': String(input.timestampSec),
    'webhook-signature': signatures.join(' '),
  }
}

/** Cost 10 is what the reference receivers' bcrypt compare expects in time (about 60 ms here). */
export const SERVICE_TOKEN_COST = 10

/**
 * The `x-service-token` value: bcrypt of the secretToken, computed once at registration (never per
 * delivery: it is deliberately slow). bcrypt reads only the first 72 bytes of the secret, and so
 * do the receivers' compare functions, so both sides agree for longer secrets too.
 */
export function hashServiceToken(secret: string): Promise<string> {
  return hash(secret, { cost: SERVICE_TOKEN_COST })
}

export const MIN_SECRET_LENGTH = 16
export const MIN_SECRET_BITS = 64
const MIN_DISTINCT = 6
const ESTIMATE_LIMIT = 256

// Words people reach for when asked for a secret. Not a password list: just enough that the
// obvious choices (and their repetitions) cost almost nothing in the estimate below.
const COMMON_WORDS = [
  'password',
  'passwd',
  'secret',
  'token',
  'webhook',
  'tessera',
  'admin',
  'changeme',
  'letmein',
  'welcome',
  'qwerty',
  'default',
  'example',
  'test',
  'master',
  'dragon',
  'monkey',
  'iloveyou',
  'hello',
  'login',
]
const WORD_BITS = Math.log2(COMMON_WORDS.length) + 1 // which word, plus one bit for its case

// Keyboard rows: walking along one is as guessable as walking the alphabet.
const KEYBOARD_ROWS = ['1234567890', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm']

function poolBits(chars: string[]): number {
  let pool = 0
  if (chars.some((c) => /[a-z]/.test(c))) pool += 26
  if (chars.some((c) => /[A-Z]/.test(c))) pool += 26
  if (chars.some((c) => /[0-9]/.test(c))) pool += 10
  if (chars.some((c) => /[\x20-\x7e]/.test(c) && !/[a-zA-Z0-9]/.test(c))) pool += 33
  if (chars.some((c) => (c.codePointAt(0) ?? 0) > 0x7e)) pool += 100
  return Math.log2(Math.max(pool, 2))
}

/** True when chars[from..to) steps by a constant delta of at most 2 code points (aaaa, abcd, 9753). */
function isArithmeticRun(chars: string[], from: number, to: number): boolean {
  const code = (i: number): number => chars[i]?.toLowerCase().codePointAt(0) ?? -1
  const delta = code(from + 1) - code(from)
  if (Math.abs(delta) > 2) return false
  for (let i = from + 2; i < to; i++) if (code(i) - code(i - 1) !== delta) return false
  return true
}

function isKeyboardRun(text: string): boolean {
  const lower = text.toLowerCase()
  const reversed = [...lower].reverse().join('')
  return KEYBOARD_ROWS.some((row) => row.includes(lower) || row.includes(reversed))
}

/**
 * Estimated guessing entropy in bits, as the cheapest description of the secret (a minimum
 * description length parse, in the spirit of zxcvbn). The secret is split into tokens, each
 * charged what an attacker enumerating that pattern would pay:
 *  - a character drawn at random from the character classes used: log2(pool size);
 *  - a repeat of the previous character: 1 bit;
 *  - a run of 3+ with a constant step of at most 2 (aaaa, abcd, 8642) or a keyboard-row walk
 *    (qwerty, asdf): the first character plus 4 bits for direction, step and length;
 *  - a common word: log2(word list) + 1 bits;
 *  - a copy of an earlier stretch of 2+ characters: log2(position) + log2(length) + 1 bits.
 * Dynamic programming picks the cheapest parse, so padding a weak secret with patterns adds
 * almost nothing, while genuinely random characters keep their full cost.
 */
export function estimateSecretBits(secret: string): number {
  // The parse is quadratic; a 256-character prefix already decides any realistic secret.
  const chars = Array.from(secret).slice(0, ESTIMATE_LIMIT)
  const n = chars.length
  const lower = chars.map((c) => c.toLowerCase())
  const charBits = poolBits(chars)
  const best = new Array<number>(n + 1).fill(Number.POSITIVE_INFINITY)
  best[0] = 0
  const relax = (end: number, cost: number): void => {
    if (cost < (best[end] ?? Number.POSITIVE_INFINITY)) best[end] = cost
  }
  for (let i = 0; i < n; i++) {
    const here = best[i] ?? Number.POSITIVE_INFINITY
    relax(i + 1, here + charBits)
    if (i > 0 && chars[i] === chars[i - 1]) relax(i + 1, here + 1)
    // Runs only grow from a shorter run, so stop at the first length that is neither kind.
    for (let end = i + 3; end <= n; end++) {
      const text = lower.slice(i, end).join('')
      if (!isArithmeticRun(chars, i, end) && !isKeyboardRun(text)) break
      relax(end, here + charBits + 4)
    }
    for (const word of COMMON_WORDS) {
      if (lower.slice(i, i + word.length).join('') === word) relax(i + word.length, here + WORD_BITS)
    }
    // Copies may overlap their source (LZ77 style), so 'abcabcabc' is 'abc' plus one cheap copy.
    let longest = 0
    for (let from = 0; from < i; from++) {
      let len = 0
      while (i + len < n && chars[from + len] === chars[i + len]) len++
      longest = Math.max(longest, len)
    }
    for (let len = 2; len <= longest; len++) relax(i + len, here + Math.log2(i) + Math.log2(len) + 1)
  }
  return best[n] ?? 0
}

/**
 * null when `secret` is acceptable as a webhook secretToken, otherwise the reason it is weak.
 * Rule (DESIGN.md "Webhook create validation"): at least 16 characters, at least 6 distinct
 * characters (a cheap, explainable floor), and at least 64 bits by estimateSecretBits: the
 * strength of a random 16-digit hex string, the weakest random secret worth accepting. Being
 * pattern-aware, the estimate refuses about 2% of such 16-hex draws (those that happen to hold
 * runs or repeats); 32 hex or 16 base64 characters from a CSPRNG always pass.
 */
export function secretStrength(secret: string): string | null {
  const chars = Array.from(secret)
  if (chars.length < MIN_SECRET_LENGTH) return `must be at least ${MIN_SECRET_LENGTH} characters long`
  if (new Set(chars).size < MIN_DISTINCT) return `must use at least ${MIN_DISTINCT} different characters`
  const bits = estimateSecretBits(secret)
  if (bits < MIN_SECRET_BITS) {
    const estimate = Math.floor(bits)
    return `is too predictable (about ${estimate} bits of entropy, at least ${MIN_SECRET_BITS} needed)`
  }
  return null
}

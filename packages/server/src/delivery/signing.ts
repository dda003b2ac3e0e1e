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

// The Standard Webhooks form of a secret: `whsec_` + base64 of 24 to 64 random bytes.
const STANDARD_SECRET = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/

/**
 * The HMAC keys a secret signs with. Always its UTF-8 bytes (Tessera's rule from the start: a
 * Standard Webhooks library verifies with `whsec_` + base64(secret), @tessera/client's verifier
 * with the secret itself). A secret of the Standard Webhooks form (what the server generates when
 * a webhook is created without one) also signs with the bytes it encodes, so that library verifies
 * with the secret as given too (`new Webhook(secret)`). Receivers accept any one signature.
 */
function signingKeys(secret: string): Buffer[] {
  const utf8 = Buffer.from(secret, 'utf8')
  const encoded = STANDARD_SECRET.exec(secret)?.[1]
  if (encoded === undefined) return [utf8]
  const decoded = Buffer.from(encoded, 'base64')
  return decoded.length >= 24 && decoded.length <= 64 ? [decoded, utf8] : [utf8]
}

/** Standard Webhooks headers: one `v1,` signature per key of each secret (signingKeys). */
export function signatureHeaders(input: SignatureInput): SignatureHeaders {
  if (input.secrets.length === 0) throw new Error('signatureHeaders needs at least one secret')
  if (!Number.isSafeInteger(input.timestampSec)) throw new Error('timestampSec must be an integer')
  const signed = `${input.msgId}.${input.timestampSec}.${input.body}`
  const signatures = input.secrets.flatMap((secret) =>
    signingKeys(secret).map((key) => `v1,${createHmac('sha256', key).update(signed).digest('base64')}`),
  )
  return {
    'webhook-id': input.msgId,
    'webhook-timestamp': String(input.timestampSec),
    'webhook-signature': signatures.join(' '),
  }
}

/** Cost 10 is what the reference receivers' bcrypt compare expects in time (about 60 ms here). */
const SERVICE_TOKEN_COST = 10

/**
 * The `x-service-token` value: bcrypt of the secretToken, computed once at registration (never per
 * delivery: it is deliberately slow). bcrypt reads only the first 72 bytes of the secret, and so
 * do the receivers' compare functions, so both sides agree for longer secrets too.
 */
export function hashServiceToken(secret: string): Promise<string> {
  return hash(secret, { cost: SERVICE_TOKEN_COST })
}

// The strength rule lives in secret-strength.ts (zxcvbn-ts); re-exported for existing importers.
export {
  estimateSecretBits,
  secretStrength,
} from './secret-strength.ts'

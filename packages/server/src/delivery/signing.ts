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

// The strength rule lives in secret-strength.ts (zxcvbn-ts); re-exported for existing importers.
export {
  BCRYPT_MAX_BYTES,
  estimateSecretBits,
  MAX_SECRET_LENGTH,
  MIN_SECRET_BITS,
  MIN_SECRET_LENGTH,
  secretStrength,
} from './secret-strength.ts'

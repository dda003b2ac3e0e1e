// Attribute values as typed in the console: text stays text unless the user chooses another type,
// so "1.10", "true" or "12345678901234567890" are stored exactly as written. A number, boolean or
// JSON value that would not be stored as written is refused with a message, and nothing is sent.
// `null` is not a value here: the server reads it as "remove the attribute" (the ✕ button does that).

export const VALUE_TYPES = ['text', 'number', 'boolean', 'json'] as const
export type ValueType = (typeof VALUE_TYPES)[number]

export const TYPE_LABELS: Record<ValueType, string> = {
  text: 'Text',
  number: 'Number',
  boolean: 'Yes/no',
  json: 'JSON',
}

/** The type a stored value is edited as. */
export function typeOf(value: unknown): ValueType {
  if (typeof value === 'string') return 'text'
  if (typeof value === 'number') return 'number'
  if (typeof value === 'boolean') return 'boolean'
  return 'json'
}

/** A stored value as the console shows (and edits) it: text as is, the rest as JSON. */
export function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}

export type Encoded = { ok: true; value: unknown } | { ok: false; message: string }

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/
/** Significant digits a double keeps exactly whatever they are. */
const EXACT_DIGITS = 15

function significantDigits(text: string): number {
  const mantissa = text.replace(/^-/, '').replace(/[eE].*$/, '')
  const digits = mantissa.includes('.') ? mantissa.replace('.', '').replace(/0+$/, '') : mantissa
  return digits.replace(/^0+/, '').length
}

function encodeNumber(text: string): Encoded {
  const trimmed = text.trim()
  if (!NUMBER.test(trimmed)) return { ok: false, message: 'Not a number: write it like 12, -3.5 or 1e6.' }
  const value = Number(trimmed)
  if (!Number.isFinite(value)) return { ok: false, message: 'This number is too large to store.' }
  if (significantDigits(trimmed) > EXACT_DIGITS) {
    return {
      ok: false,
      message: `A number keeps at most ${EXACT_DIGITS} digits exactly: choose Text to keep ${trimmed} as written.`,
    }
  }
  return { ok: true, value }
}

function encodeJson(text: string): Encoded {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return { ok: false, message: `Not valid JSON: ${e instanceof Error ? e.message : String(e)}` }
  }
  if (value === null) return { ok: false, message: 'null would remove the attribute: use ✕ to remove it.' }
  return { ok: true, value }
}

/** The value to send for `text` typed as `type`, or why it cannot be sent. */
export function encode(text: string, type: ValueType): Encoded {
  switch (type) {
    case 'text':
      return { ok: true, value: text }
    case 'number':
      return encodeNumber(text)
    case 'boolean': {
      const t = text.trim().toLowerCase()
      return t === 'true' || t === 'false'
        ? { ok: true, value: t === 'true' }
        : { ok: false, message: 'Yes/no values are true or false.' }
    }
    case 'json':
      return encodeJson(text)
  }
}

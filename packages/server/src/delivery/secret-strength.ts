// How guessable a webhook secretToken is (docs/webhooks.md, registering). zxcvbn-ts does the
// estimate: dictionaries (common passwords, English words, names, diceware), keyboard walks,
// sequences, repeats, dates. Two facts shape the rule:
//  - bcrypt, which makes `x-service-token`, reads only the first 72 bytes of the secret: whoever
//    guesses those forges the header. So the estimate runs on those 72 bytes, and since nobody
//    can guess a whole secret without its prefix, a strong prefix is also a strong secret.
//  - The estimate must stay cheap on the event loop whatever the caller sends: the input is
//    bounded (MAX_SECRET_LENGTH) and zxcvbn only ever sees at most 72 bytes, so one call costs
//    the same few milliseconds for a 72-byte and a 256-character secret.
import { ZxcvbnFactory } from '@zxcvbn-ts/core'
import * as common from '@zxcvbn-ts/language-common'
import * as english from '@zxcvbn-ts/language-en'
import { FOREIGN_WORDS, isKnownDigest, TRADE_WORDS } from './known-secrets.ts'
import { INVISIBLE, poolBits, spelledBits, unleet } from './secret-readings.ts'

const MIN_SECRET_LENGTH = 16
const MAX_SECRET_LENGTH = 256
/** The strength of 16 random hex digits, the weakest random secret worth accepting. */
const MIN_SECRET_BITS = 64
/** bcrypt ignores every byte past the 72nd. */
const BCRYPT_MAX_BYTES = 72
const MIN_DISTINCT = 6

let estimator: ZxcvbnFactory | undefined
/** Each known word's best rank in the merged list (0: the most common). */
const rank = new Map<string, number>()
const rankOf = (word: string) => rank.get(word)

// Passphrases everyone has seen (lower case, letters only): word lists rank each word, not the
// famous sequence, so these would otherwise pass as four to ten words. Checked by substring, not
// as a zxcvbn dictionary: its matcher's cost grows with the longest entry.
const PHRASES = [
  'correcthorsebatterystaple',
  'thequickbrownfoxjumpsoverthelazydog',
  'tobeornottobethatisthequestion',
  'loremipsumdolorsitamet',
  'maytheforcebewithyou',
  'allyourbasearebelongtous',
  'iwanttobelieve',
  'hellodarknessmyoldfriend',
  'onceuponatime',
  'itwasadarkandstormynight',
  'neverumbrellaagain',
  'thisisasecret',
  'letmeinplease',
  'opensesame',
]

/**
 * Built once, on first use (about 0.3 s: the word lists are ranked). Every word list but diceware
 * is merged into one ranked list, keeping each word's best rank: zxcvbn looks every substring up
 * in every list, so one list instead of nineteen makes the matching about ten times cheaper for
 * the same verdicts. The words of the trade and the foreign words (known-secrets.ts) are lists of
 * their own, ranked first: they are what a careless secret is made of. zxcvbn's l33t matcher is
 * off: it is exponential in the number of substitutable characters (a second for 64 hex digits)
 * and random secrets are full of them; leetspeak is undone as a second reading instead.
 */
function zxcvbn(): ZxcvbnFactory {
  if (estimator) return estimator
  const lists: Record<string, string[]> = {
    trade: TRADE_WORDS,
    foreign: FOREIGN_WORDS,
    ...common.dictionary,
    ...english.dictionary,
  }
  for (const [name, words] of Object.entries(lists)) {
    if (name === 'diceware-common') continue
    words.forEach((word, index) => {
      const key = word.toLowerCase()
      if ((rank.get(key) ?? Number.POSITIVE_INFINITY) > index) rank.set(key, index)
    })
  }
  const merged = [...rank].sort((a, b) => a[1] - b[1]).map(([word]) => word)
  const { qwerty, keypad } = common.adjacencyGraphs
  estimator = new ZxcvbnFactory({
    dictionary: { words: merged, 'diceware-common': lists['diceware-common'] ?? [] },
    graphs: { qwerty, keypad },
    l33tMaxSubstitutions: 0,
    maxLength: BCRYPT_MAX_BYTES,
  })
  return estimator
}

/** The longest prefix of whole characters that fits in `bytes` UTF-8 bytes. */
function utf8Prefix(text: string, bytes: number): string {
  let used = 0
  let end = 0
  for (const char of text) {
    used += Buffer.byteLength(char, 'utf8')
    if (used > bytes) break
    end += char.length
  }
  return text.slice(0, end)
}

// Passphrase separators: an attacker trying word lists tries every separator, so a phrase is also
// read without them. Not + or /: base64 has them, and random text gains nothing from the reading.
const SEPARATORS = /[\s\-_]+/g

/**
 * zxcvbn's cheapest reading of `text`, in bits, with one change: zxcvbn charges a stretch that
 * matches no pattern 10 guesses a character whatever it holds (so 16 random base64 characters
 * would be 53 bits); here such a stretch costs what a random draw from the alphabets used costs,
 * or less when words zxcvbn passed over spell it, and the patterns zxcvbn found keep their price.
 * Orderings of the l parts: log2(l!).
 */
function readingBits(text: string): number {
  const { sequence } = zxcvbn().check(text)
  const perChar = poolBits(text)
  let bits = 0
  sequence.forEach((match, index) => {
    const guessed = Math.log2(Math.max(match.guesses, 1))
    bits +=
      match.pattern === 'bruteforce'
        ? Math.max(guessed, Math.min(match.token.length * perChar, spelledBits(match.token, perChar, rankOf)))
        : guessed
    bits += Math.log2(index + 1)
  })
  return bits
}

/**
 * The text zxcvbn reads for `prefix`, and the bits to add for what the rewriting removed. Without
 * separators: an attacker trying word lists tries every separator, and the separators themselves
 * would only add a few bits. With doubled characters collapsed, plus a bit per character for
 * "doubled or not", when at least a quarter are doubles: aabbccdd is abcd stuttered, which
 * zxcvbn does not see. One reading, so one zxcvbn call, whatever the secret.
 */
function reading(prefix: string): { text: string; extraBits: number } {
  const joined = prefix.replace(SEPARATORS, '')
  const text = joined.length > 0 ? joined : prefix
  const chars = Array.from(text)
  const collapsed = chars.filter((char, index) => index === 0 || chars[index - 1] !== char)
  if (collapsed.length * 4 > chars.length * 3) return { text, extraBits: 0 }
  return { text: collapsed.join(''), extraBits: collapsed.length }
}

/**
 * Estimated guessing entropy in bits of the first 72 bytes of `secret` (what bcrypt reads), as
 * typed (compatibility forms folded, invisible characters dropped) and with leetspeak undone, a
 * bit per substitution: the cheaper reading counts.
 */
export function estimateSecretBits(secret: string): number {
  const seen = utf8Prefix(secret, BCRYPT_MAX_BYTES).normalize('NFKC').replace(INVISIBLE_ALL, '')
  const plain = reading(seen)
  let bits = readingBits(plain.text) + plain.extraBits
  const leet = unleet(seen)
  if (leet.substitutions > 0) {
    const undone = reading(leet.text)
    bits = Math.min(bits, readingBits(undone.text) + undone.extraBits + leet.substitutions)
  }
  return bits
}
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, 'gu')

/**
 * Is the estimate of `secret` at least `bits`? zxcvbn's search is quadratic in its input, so the
 * first 24 characters are tried alone first: nobody guesses a secret without guessing its start,
 * so a strong start decides at a quarter of the cost, which is the case of every random secret.
 */
function reaches(secret: string, bits: number): { ok: boolean; estimate: number } {
  const start = Array.from(secret).slice(0, QUICK_PREFIX).join('')
  if (start.length < secret.length) {
    const quick = estimateSecretBits(start)
    if (quick >= bits) return { ok: true, estimate: quick }
  }
  const estimate = estimateSecretBits(secret)
  return { ok: estimate >= bits, estimate }
}
const QUICK_PREFIX = 24

/** Does `secret`, in lower-case letters only, hold a famous passphrase? */
function holdsFamousPhrase(secret: string): boolean {
  const letters = secret.toLowerCase().replace(/[^a-z]/g, '')
  return PHRASES.some((phrase) => letters.includes(phrase))
}

// With its dashes: 32 bare hex digits are what `openssl rand -hex 16` prints.
const UUID = /^(?:urn:uuid:)?\{?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\}?$/i
const URL_LIKE = /^(?:[a-z][a-z0-9+.-]*:\/\/|www\.)/i

/**
 * null when `secret` is acceptable as a webhook secretToken, otherwise the reason it is weak:
 * no invisible characters, 16 to 256 characters, 6 distinct ones (a cheap, explainable floor), not
 * shaped like a UUID or a URL (identifiers, often public or time-based, are not secrets), not the
 * digest of a well-known text, and at least 64 bits estimated on its first 72 bytes. Random 32 hex or 24 base64 characters always pass.
 */
export function secretStrength(secret: string): string | null {
  // Refused, not dropped: a receiver must hold the exact bytes, and nobody can see or check these.
  if (INVISIBLE.test(secret))
    return 'holds invisible characters (zero-width, BOM, bidi marks or controls): remove them'
  const chars = Array.from(secret)
  if (chars.length < MIN_SECRET_LENGTH) return `must be at least ${MIN_SECRET_LENGTH} characters long`
  if (new Set(chars).size < MIN_DISTINCT) return `must use at least ${MIN_DISTINCT} different characters`
  if (chars.length > MAX_SECRET_LENGTH) return `must be at most ${MAX_SECRET_LENGTH} characters long`
  if (UUID.test(secret.trim())) return 'looks like a UUID: an identifier is not a secret'
  if (URL_LIKE.test(secret.trim())) return 'looks like a URL: an address is not a secret'
  if (holdsFamousPhrase(secret) || holdsFamousPhrase(unleet(secret).text))
    return 'holds a well-known passphrase'
  if (isKnownDigest(secret))
    return 'is the hash of a well-known text (such as the empty string or a common password)'
  const { ok, estimate } = reaches(secret, MIN_SECRET_BITS)
  if (ok) return null
  const bits = Math.floor(estimate)
  const needed = `about ${bits} bits of entropy, at least ${MIN_SECRET_BITS} needed`
  if (Buffer.byteLength(secret, 'utf8') > BCRYPT_MAX_BYTES) {
    return `is too predictable in its first ${BCRYPT_MAX_BYTES} bytes, the only ones x-service-token's bcrypt reads (${needed})`
  }
  return `is too predictable (${needed})`
}

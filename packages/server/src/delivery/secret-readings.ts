// How secret-strength.ts reads a secret before zxcvbn prices it, and prices what zxcvbn leaves as
// "bruteforce": the character pool of the scripts used (a Cyrillic letter is one of 33, not a
// jump into all of Unicode), leetspeak undone, and words zxcvbn skipped found again.

/** Alphabets by script: how many letters a random character of that kind is drawn from. */
const POOLS: [RegExp, number][] = [
  [/[a-z]/, 26],
  [/[A-Z]/, 26],
  [/[0-9]/, 10],
  [/[\x20-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/, 33],
  [/(?=\p{Script=Cyrillic})\p{Ll}/u, 33],
  [/(?=\p{Script=Cyrillic})\p{Lu}/u, 33],
  [/(?=\p{Script=Greek})\p{Ll}/u, 24],
  [/(?=\p{Script=Greek})\p{Lu}/u, 24],
  [/(?=\p{Script=Latin})\P{ASCII}/u, 60],
  [/\p{Script=Arabic}/u, 28],
  [/\p{Script=Hebrew}/u, 22],
  [/\p{Script=Armenian}/u, 38],
  [/\p{Script=Georgian}/u, 33],
  [/\p{Script=Thai}/u, 44],
  [/\p{Script=Devanagari}/u, 48],
  [/\p{Script=Hiragana}/u, 50],
  [/\p{Script=Katakana}/u, 50],
  [/\p{Script=Hangul}/u, 2350],
  [/\p{Script=Han}/u, 3000],
]
const KNOWN_SCRIPTS =
  /[\x20-\x7e\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Latin}\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Armenian}\p{Script=Georgian}\p{Script=Thai}\p{Script=Devanagari}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Han}]/u

/** log2 of the characters a random character of `text` is drawn from, by the alphabets it uses. */
export function poolBits(text: string): number {
  let pool = 0
  for (const [kind, size] of POOLS) if (kind.test(text)) pool += size
  // Anything else (symbols, emoji, other scripts): one of a few hundred a person would type.
  if (Array.from(text).some((char) => !KNOWN_SCRIPTS.test(char))) pool += 200
  return Math.log2(Math.max(pool, 2))
}

// The substitutions every cracking rule set tries first (digits and signs for the letters they
// look like). One letter each: `1` is read as `i` (admin, in) more often than as `l`.
const LEET: Record<string, string> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '@': 'a',
  $: 's',
  '|': 'l',
}

/**
 * `text` with leetspeak undone, and how many characters that changed. Only inside runs that hold
 * a letter: the 0 and 4 of `2024` stay digits, the 0 of `w0rd` is an o.
 */
export function unleet(text: string): { text: string; substitutions: number } {
  let substitutions = 0
  const plain = text.replace(/[\p{L}0134579@$|]+/gu, (run) => {
    if (!/\p{L}/u.test(run)) return run
    return Array.from(run, (char) => {
      const letter = LEET[char]
      if (letter === undefined) return char
      substitutions += 1
      return letter
    }).join('')
  })
  return { text: plain, substitutions }
}

/** The longest word worth looking for inside a stretch zxcvbn left unmatched. */
const LONGEST_WORD = 16
/**
 * The shortest: random text is full of two-letter words (to, oh, at), and each would cut a random
 * stretch's price by a character's worth; three letters and more are rarer by far.
 */
const SHORTEST_WORD = 3
/** What a word costs beyond its rank: where it sits among random characters, and that it is one. */
const WORD_PIECE_BITS = 1

/**
 * The cheapest way to spell `token` (a stretch zxcvbn priced as random) from dictionary words of
 * three or more letters and random characters, in bits: a word costs log2 of its rank plus
 * WORD_PIECE_BITS, a random character `perChar`. zxcvbn prices such a stretch at
 * 10 guesses a character and so prefers it to a row of short words (my + cat); once the stretch
 * is priced by its character pool instead, the words must be found again.
 */
export function spelledBits(token: string, perChar: number, rankOf: (word: string) => number | undefined) {
  const chars = Array.from(token)
  const cost: number[] = [0]
  for (let end = 1; end <= chars.length; end++) {
    let best = (cost[end - 1] ?? 0) + perChar
    for (let start = Math.max(0, end - LONGEST_WORD); start <= end - SHORTEST_WORD; start++) {
      const piece = chars.slice(start, end).join('')
      const caseBits = caseVariationBits(piece)
      const rank = caseBits === null ? undefined : rankOf(piece.toLowerCase())
      if (rank !== undefined)
        best = Math.min(best, (cost[start] ?? 0) + Math.log2(rank + 1) + WORD_PIECE_BITS + (caseBits ?? 0))
    }
    cost.push(best)
  }
  return cost[chars.length] ?? 0
}

/**
 * What the case of a word costs: nothing in lower case, a bit Capitalized or in CAPITALS, and any
 * other mix is not read as the word at all (random text mixes case; a person rarely does).
 */
function caseVariationBits(piece: string): number | null {
  const lower = piece.toLowerCase()
  if (piece === lower) return 0
  if (piece === piece.toUpperCase()) return 1
  return piece === (piece[0] ?? '').toUpperCase() + lower.slice(1) ? 1 : null
}

/** Characters nobody sees: zero-width, joiners, BOM, bidi marks and controls, line separators. */
export const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u

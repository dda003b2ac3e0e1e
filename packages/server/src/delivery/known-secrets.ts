// What an attacker tries before anything random, beyond zxcvbn's English and common-password lists
// (secret-strength.ts): words of the webhook trade, "password" and "secret" in other languages and
// scripts, and the hex or base64 digests of the empty string and of common passwords (a hash of
// something guessable is as guessable as the thing: `md5('')` is in every cracking list).
import { createHash } from 'node:crypto'
import * as common from '@zxcvbn-ts/language-common'

/** Words of the trade: what a secret for "our webhook" is made of. Ranked like a short dictionary. */
export const TRADE_WORDS = [
  'webhook',
  'webhooks',
  'hook',
  'secret',
  'token',
  'key',
  'apikey',
  'signing',
  'signature',
  'whsec',
  'company',
  'tessera',
  'prod',
  'production',
  'staging',
  'dev',
  'test',
  'admin',
  'endpoint',
  'callback',
  'notify',
  'notification',
  'payload',
  'shared',
]

/** "password", "secret", "admin" and the like in other languages (the lists are English only). */
export const FOREIGN_WORDS = [
  'пароль',
  'секрет',
  'секретный',
  'админ',
  'администратор',
  'ключ',
  'тест',
  'привет',
  'гасло',
  'лозинка',
  'парола',
  'κωδικός',
  'μυστικό',
  'סיסמה',
  'كلمةالسر',
  'كلمةالمرور',
  '密码',
  '口令',
  '秘密',
  'パスワード',
  'ひみつ',
  '비밀번호',
  '암호',
  'contraseña',
  'contrasena',
  'clave',
  'secreto',
  'passwort',
  'kennwort',
  'geheim',
  'motdepasse',
  'segreto',
  'senha',
  'segredo',
  'wachtwoord',
  'geheim',
  'hasło',
  'haslo',
  'sifre',
  'şifre',
  'parola',
  'salasana',
  'losenord',
  'lösenord',
  'adgangskode',
  'passord',
  'heslo',
  'jelszó',
  'jelszo',
  'matkhau',
  'katasandi',
  'रहस्य',
  'पासवर्ड',
]

const DIGESTS = ['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512'] as const
/** The most common passwords hashed too (the common list is ranked, most common first). */
const HASHED_COMMON = 1000

let digests: Set<string> | undefined

/** The hex and base64 digests of the guessable texts, built once on first use (a few ms). */
function knownDigests(): Set<string> {
  if (digests) return digests
  const texts = new Set<string>(['', ...TRADE_WORDS])
  for (const word of (common.dictionary['passwords-common'] ?? []).slice(0, HASHED_COMMON)) texts.add(word)
  digests = new Set()
  for (const text of texts) {
    for (const algorithm of DIGESTS) {
      const digest = createHash(algorithm).update(text, 'utf8').digest()
      digests.add(digest.toString('hex'))
      digests.add(digest.toString('base64'))
      digests.add(digest.toString('base64url'))
    }
  }
  return digests
}

/** Is `secret` (or what follows a `name_` prefix such as `whsec_`) the digest of a guessable text? */
export function isKnownDigest(secret: string): boolean {
  const trimmed = secret.trim()
  const bare = trimmed.replace(/^[a-z]+_/i, '')
  const set = knownDigests()
  return [trimmed, bare].some((text) => set.has(text) || set.has(text.toLowerCase()))
}

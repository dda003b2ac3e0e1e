// Record IDs: 24 lowercase hex characters, time-ordered like MongoDB ObjectIds
// (4 bytes of seconds, 5 random bytes fixed per process, 3 bytes of a counter).
import { randomBytes, randomInt } from 'node:crypto'
import { ID_PATTERN } from '../contract/index.ts'

// The pattern belongs to the contract (schemas check it); kept exported here for existing importers.
export { ID_PATTERN }

const processPart = randomBytes(5).toString('hex')
let counter = randomInt(0, 0xffffff)

export function newId(now = Date.now()): string {
  counter = (counter + 1) % 0x1000000
  const seconds = Math.floor(now / 1000)
    .toString(16)
    .padStart(8, '0')
  return seconds + processPart + counter.toString(16).padStart(6, '0')
}

export function isId(value: string): boolean {
  return /^[0-9a-f]{24}$/.test(value)
}

// A link session (modules/links) reads as this reader ID where an account ID goes: `link:` is never
// part of a record ID, so it names no account, owns nothing and matches no share or author; only
// modules/files/access.ts reads it back, to admit reads of the one file the link is for.
const LINK_READER = /^link:([0-9a-f]{24}):([0-9a-f]{24})$/

export function linkReaderId(fileId: string, linkId: string): string {
  return `link:${fileId}:${linkId}`
}

/** The file and link a link reader ID names; null for an account ID. */
export function linkReaderOf(readerId: string): { fileId: string; linkId: string } | null {
  const match = LINK_READER.exec(readerId)
  return match ? { fileId: match[1] as string, linkId: match[2] as string } : null
}

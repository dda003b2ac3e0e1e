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

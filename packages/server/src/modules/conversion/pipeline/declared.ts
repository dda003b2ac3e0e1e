// Sizes an input declares in its headers (a glTF accessor's count, a PLY element count, a binary
// STL's triangle count), checked before an importer allocates from them: importers size their
// arrays from these numbers, not from the bytes they were given, so a 260-byte GLB declaring 30 M
// zero-filled vertices once made a conversion take 1.3 GB and run to its time budget. What survives
// these checks is still bounded by the conversion's memory limit (../memory-watch.ts).
import { ConversionError } from './types.ts'

const DECLARED_LIMITS = {
  /** Decoded data any input may declare, whatever its size (zero-filled or sparse accessors, …)… */
  freeBytes: 64 * 1024 ** 2,
  /** …and beyond it at most this many times its own bytes (Draco and meshopt expand ~5–20×). */
  maxRatio: 100,
  /** Hard cap, whatever the input's size. */
  maxBytes: 4 * 1024 ** 3,
}

/** The decoded bytes an input of `inputBytes` may declare. */
export function declaredBudget(inputBytes: number): number {
  return Math.min(
    DECLARED_LIMITS.maxBytes,
    Math.max(DECLARED_LIMITS.freeBytes, inputBytes * DECLARED_LIMITS.maxRatio),
  )
}

/** `343.3 MiB`, `260 bytes`: for failure messages. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`
  const units = ['KiB', 'MiB', 'GiB', 'TiB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${Number(value.toFixed(1))} ${units[unit]}`
}

/** The failure of an input declaring more decoded data than its budget allows. */
export function tooMuchDeclared(what: string, declared: number, inputBytes: number): ConversionError {
  const shown = Number.isFinite(declared) ? formatBytes(declared) : 'an invalid size'
  return new ConversionError(
    `the model declares more data than it can hold (${what}: ${shown}; at most ${formatBytes(declaredBudget(inputBytes))} for a file of ${formatBytes(inputBytes)})`,
  )
}

// One slice of a saved view: the part of the configuration record one viewer tool owns, read into a
// typed state and written back. Pure (no three.js, no DOM): unit-tested in Node
// (test/view-state.test.ts). Each record field is owned by exactly one slice (docs/console.md,
// "What a saved view holds").
import type { Configuration, ConfigurationFields } from '../../api/types.ts'

/** What a slice reads: a saved record, or the fields a client sent (anything may be missing or odd). */
export type RecordIn = { readonly [K in keyof Configuration]?: unknown }
/** What a slice writes: fields of a save request. */
export type RecordOut = Partial<ConfigurationFields>

export interface Slice<S> {
  /** A view with nothing of this slice set. */
  defaults(): S
  /** From the record: a missing or malformed field gives its default, never an exception. */
  read(record: RecordIn): S
  write(state: S): RecordOut
}

export type Vec3 = [number, number, number]

export function isVec3(value: unknown): value is Vec3 {
  return (
    Array.isArray(value) &&
    value.length === 3 &&
    value.every((n) => typeof n === 'number' && Number.isFinite(n))
  )
}

/** A finite number within [min, max], else the fallback. */
export function numberIn(value: unknown, min: number, max: number, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max
    ? value
    : fallback
}

export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
}

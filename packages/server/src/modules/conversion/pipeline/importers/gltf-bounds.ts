// A glTF's declared sizes, checked before glTF-Transform reads it. Its reader allocates every
// accessor's array from `count` (a zero-filled one when the accessor has no bufferView, an
// interleaved one before a byte is read), each sparse accessor's indices and values, and each
// EXT_meshopt_compression view from its declared count × byteStride. So: every accessor and view
// must lie inside the bytes it reads, and everything the reader would allocate must fit the input's
// budget (../declared.ts).
import { declaredBudget, tooMuchDeclared } from '../declared.ts'
import { ConversionError } from '../types.ts'

type Json = Record<string, unknown>

/** Bytes per component type, as glTF-Transform reads them (5131, 5130: KHR_accessor_float16/64). */
const COMPONENT_BYTES: Record<number, number> = {
  5120: 1,
  5121: 1,
  5122: 2,
  5123: 2,
  5125: 4,
  5126: 4,
  5131: 2,
  5130: 8,
}
const COMPONENTS: Record<string, number> = {
  SCALAR: 1,
  VEC2: 2,
  VEC3: 3,
  VEC4: 4,
  MAT2: 4,
  MAT3: 9,
  MAT4: 16,
}

/**
 * Throws a ConversionError when an accessor or bufferView reaches past the bytes it reads, or when
 * the arrays the reader would allocate exceed the budget of `inputBytes` (the upload: the model
 * file and its side files). `bufferBytes(i)` is the length of buffer i as given (undefined: not
 * given).
 */
export function checkDeclaredSizes(
  json: Json,
  bufferBytes: (index: number) => number | undefined,
  inputBytes: number,
): void {
  const views = arrayOf(json.bufferViews)
  let decoded = 0
  const viewLengths = views.map((view, index) => {
    const length = checkBufferView(view, index, bufferBytes)
    decoded += length.decoded
    return length.bytes
  })
  for (const [index, accessor] of arrayOf(json.accessors).entries()) {
    decoded += checkAccessor(accessor, index, viewLengths)
  }
  if (!(decoded <= declaredBudget(inputBytes))) {
    throw tooMuchDeclared('accessors and buffer views', decoded, inputBytes)
  }
}

function arrayOf(value: unknown): Json[] {
  return Array.isArray(value)
    ? value.map((item) => (typeof item === 'object' && item ? (item as Json) : {}))
    : []
}

/** A non-negative integer property, or `fallback` when absent; NaN when present and not one. */
function count(value: unknown, fallback = Number.NaN): number {
  if (value === undefined) return fallback
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : Number.NaN
}

function invalid(text: string): ConversionError {
  return new ConversionError(`invalid glTF: ${text}`)
}

/** The view's length as accessors read it, and what decoding it allocates (meshopt only). */
function checkBufferView(
  view: Json,
  index: number,
  bufferBytes: (index: number) => number | undefined,
): { bytes: number; decoded: number } {
  const meshopt = (view.extensions as Json | undefined)?.EXT_meshopt_compression as Json | undefined
  if (meshopt) {
    // Decoded into a new array of count × byteStride; the compressed bytes lie in another buffer.
    const compressedEnd = count(meshopt.byteOffset, 0) + count(meshopt.byteLength)
    checkInside(compressedEnd, bufferBytes(count(meshopt.buffer)), `bufferView ${index}`)
    const decoded = count(meshopt.count) * count(meshopt.byteStride)
    return { bytes: decoded, decoded }
  }
  const end = count(view.byteOffset, 0) + count(view.byteLength)
  checkInside(end, bufferBytes(count(view.buffer)), `bufferView ${index}`)
  return { bytes: count(view.byteLength), decoded: 0 }
}

function checkInside(end: number, available: number | undefined, what: string): void {
  if (Number.isNaN(end)) throw invalid(`${what} has an invalid offset or length`)
  // A buffer not given is reported by the reader ("missing file", "invalid glTF").
  if (available !== undefined && end > available) throw invalid(`${what} reaches past its buffer`)
}

/** What the reader allocates for the accessor, after checking it lies inside its bufferView. */
function checkAccessor(accessor: Json, index: number, viewLengths: number[]): number {
  const componentBytes = COMPONENT_BYTES[accessor.componentType as number]
  const components = COMPONENTS[accessor.type as string]
  const elements = count(accessor.count)
  if (componentBytes === undefined || components === undefined || Number.isNaN(elements)) {
    throw invalid(`accessor ${index} has an invalid type, componentType or count`)
  }
  const elementBytes = componentBytes * components
  if (accessor.bufferView !== undefined) {
    checkReads(accessor, elements, elementBytes, viewLengths, `accessor ${index}`)
  }
  let allocated = elements * elementBytes
  const sparse = accessor.sparse as Json | undefined
  if (sparse) {
    const overrides = count(sparse.count)
    const indices = (sparse.indices ?? {}) as Json
    const indexBytes = COMPONENT_BYTES[indices.componentType as number]
    if (Number.isNaN(overrides) || indexBytes === undefined)
      throw invalid(`accessor ${index}: invalid sparse`)
    checkReads(indices, overrides, indexBytes, viewLengths, `accessor ${index}`)
    checkReads((sparse.values ?? {}) as Json, overrides, elementBytes, viewLengths, `accessor ${index}`)
    allocated += overrides * (indexBytes + elementBytes)
  }
  return allocated
}

/** The `elements` read from `ref.bufferView` at `ref.byteOffset` lie inside that view. */
function checkReads(
  ref: Json,
  elements: number,
  elementBytes: number,
  viewLengths: number[],
  what: string,
): void {
  const viewLength = viewLengths[count(ref.bufferView)]
  if (viewLength === undefined) throw invalid(`${what} refers to a missing bufferView`)
  if (elements === 0) return
  // With the least stride (the element's size): what the reader allocates for the accessor is then
  // at most the view's length. A longer stride that runs past the view makes the reader throw.
  const end = count(ref.byteOffset, 0) + (elements - 1) * elementBytes + elementBytes
  if (!(end <= viewLength)) throw invalid(`${what} reaches past its bufferView`)
}

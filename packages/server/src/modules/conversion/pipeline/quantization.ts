// How many bits a Draco-decoded input was quantized with. Draco stores an attribute as integers on
// a uniform grid over the largest extent of its bounding box; decoded, the values sit on that grid,
// so the smallest step between distinct values tells the grid, and the extent over the step its
// size. Re-encoding with as many bits keeps every value where it was.
import type { Accessor, Document } from '@gltf-transform/core'

/** Draco's defaults (glTF-Transform's), used when nothing better is known. */
const DEFAULT_BITS = { position: 14, texcoord: 12 }
/** Never coarser than the defaults, never beyond what a float32 grid can hold meaningfully. */
const MAX_BITS = 20

export function estimateQuantizationBits(document: Document): { position: number; texcoord: number } {
  let position = 0
  let texcoord = 0
  for (const mesh of document.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) {
      const positions = primitive.getAttribute('POSITION')
      if (positions) position = Math.max(position, gridBits(positions))
      const uvs = primitive.getAttribute('TEXCOORD_0')
      if (uvs) texcoord = Math.max(texcoord, gridBits(uvs))
    }
  }
  return {
    position: clamp(position, DEFAULT_BITS.position),
    texcoord: clamp(texcoord, DEFAULT_BITS.texcoord),
  }
}

function clamp(bits: number, fallback: number): number {
  return Math.min(MAX_BITS, Math.max(fallback, bits))
}

/** Bits of the grid the accessor's values lie on; 0 when it cannot tell (normalized ints, one value). */
function gridBits(accessor: Accessor): number {
  const array = accessor.getArray()
  if (!(array instanceof Float32Array)) return 0
  const components = accessor.getElementSize()
  const count = accessor.getCount()
  let range = 0
  let step = Number.POSITIVE_INFINITY
  for (let c = 0; c < components; c++) {
    const values = new Float32Array(count)
    for (let i = 0; i < count; i++) values[i] = array[i * components + c] ?? 0
    values.sort()
    const axisRange = (values[count - 1] ?? 0) - (values[0] ?? 0)
    range = Math.max(range, axisRange)
    // Differences below float32 noise at this magnitude are rounding, not grid steps.
    const noise = Math.max(Math.abs(values[0] ?? 0), Math.abs(values[count - 1] ?? 0)) * 1e-6
    for (let i = 1; i < count; i++) {
      const difference = (values[i] ?? 0) - (values[i - 1] ?? 0)
      if (difference > noise && difference < step) step = difference
    }
  }
  if (!(range > 0) || !Number.isFinite(step)) return 0
  return Math.ceil(Math.log2(range / step + 1) - 0.05)
}

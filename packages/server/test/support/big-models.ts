// Large models generated in code, for tests and benches that need a conversion to take a while:
// a bumpy terrain as a binary STL. The surface is noisy enough that simplification (error bound
// 0.0001 of the extent) keeps nearly every triangle, so the work grows with the triangle count.

/** Bytes of a binary STL with `triangles` facets: 80-byte header, count, 50 bytes per facet. */
export function binaryStlSize(triangles: number): number {
  return 84 + 50 * triangles
}

/**
 * A binary STL terrain of about `triangles` facets (rounded down to an even grid), `size` units
 * wide; deterministic for the same arguments.
 */
export function terrainStl(triangles: number, size = 10): Buffer {
  const cells = Math.max(1, Math.floor(Math.sqrt(triangles / 2)))
  const count = cells * cells * 2
  const out = Buffer.alloc(binaryStlSize(count))
  out.write('tessera terrain', 0, 'ascii')
  out.writeUInt32LE(count, 80)
  const step = size / cells
  const height = (i: number, j: number): number => {
    const x = i / cells
    const y = j / cells
    // Broad hills plus a fine ripple and a hash-based jitter: no two neighbouring facets coplanar.
    const jitter = (((i * 73856093) ^ (j * 19349663)) >>> 0) / 0xffffffff
    return (
      size * (0.15 * Math.sin(x * 6.3) * Math.cos(y * 4.1) + 0.01 * Math.sin(x * 97 + y * 61) + 0.02 * jitter)
    )
  }
  let offset = 84
  const vertex = (i: number, j: number): void => {
    out.writeFloatLE(i * step - size / 2, offset)
    out.writeFloatLE(height(i, j), offset + 4)
    out.writeFloatLE(j * step - size / 2, offset + 8)
    offset += 12
  }
  for (let i = 0; i < cells; i++) {
    for (let j = 0; j < cells; j++) {
      for (const tri of [
        [i, j, i, j + 1, i + 1, j],
        [i + 1, j, i, j + 1, i + 1, j + 1],
      ] as const) {
        offset += 12 // facet normal: zero, viewers (and the importer) compute their own
        vertex(tri[0], tri[1])
        vertex(tri[2], tri[3])
        vertex(tri[4], tri[5])
        offset += 2 // attribute byte count
      }
    }
  }
  return out
}

// Document-building helpers shared by the CAD (occt.ts) and BIM (ifc.ts) importers.
import type { Buffer, Document, Material, Primitive } from '@gltf-transform/core'

/** Linear RGBA, as glTF's baseColorFactor wants it. */
export type Rgba = readonly [number, number, number, number]

/** Light grey (linear) for shapes the file gives no color. */
export const DEFAULT_COLOR: Rgba = [0.6, 0.6, 0.6, 1]

/**
 * One material per distinct color. CAD and BIM colors are plain diffuse colors, so the materials
 * are non-metallic (glTF's default metallic = 1 renders them nearly black without an environment
 * map). They are double-sided: IGES surfaces, STEP surface models and many IFC exports hold open
 * or inconsistently oriented faces, which one-sided rendering would show as holes.
 */
export function materialPalette(document: Document): (color: Rgba) => Material {
  const byKey = new Map<string, Material>()
  return (color) => {
    const [r, g, b, a] = color.map((channel) => Math.min(1, Math.max(0, channel))) as [
      number,
      number,
      number,
      number,
    ]
    const key = [r, g, b, a].map((channel) => Math.round(channel * 1000)).join(',')
    let material = byKey.get(key)
    if (!material) {
      material = document
        .createMaterial(colorName([r, g, b, a]))
        .setBaseColorFactor([r, g, b, a])
        .setMetallicFactor(0)
        .setRoughnessFactor(0.6)
        .setDoubleSided(true)
      if (a < 1) material.setAlphaMode('BLEND')
      byKey.set(key, material)
    }
    return material
  }
}

function colorName([r, g, b, a]: Rgba): string {
  const hex = [r, g, b]
    .map((channel) =>
      Math.round(channel * 255)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')
  return a < 1 ? `#${hex} ${Math.round(a * 100)}%` : `#${hex}`
}

/** A triangle primitive; null when it would hold no triangle (glTF forbids empty accessors). */
export function trianglePrimitive(
  document: Document,
  buffer: Buffer,
  geometry: { position: Float32Array; normal: Float32Array | null; index: Uint32Array },
  material: Material,
): Primitive | null {
  if (geometry.index.length < 3 || geometry.position.length < 9) return null
  const primitive = document
    .createPrimitive()
    .setAttribute(
      'POSITION',
      document.createAccessor().setType('VEC3').setArray(geometry.position).setBuffer(buffer),
    )
    .setIndices(document.createAccessor().setType('SCALAR').setArray(geometry.index).setBuffer(buffer))
    .setMaterial(material)
  if (geometry.normal) {
    normalizeInPlace(geometry.normal)
    primitive.setAttribute(
      'NORMAL',
      document.createAccessor().setType('VEC3').setArray(geometry.normal).setBuffer(buffer),
    )
  }
  return primitive
}

/** glTF requires unit normals; tessellators leave zero vectors at singular points (cone tips). */
function normalizeInPlace(normals: Float32Array): void {
  for (let i = 0; i + 2 < normals.length; i += 3) {
    const x = normals[i] ?? 0
    const y = normals[i + 1] ?? 0
    const z = normals[i + 2] ?? 0
    const length = Math.hypot(x, y, z)
    if (length > 1e-12) {
      normals[i] = x / length
      normals[i + 1] = y / length
      normals[i + 2] = z / length
    } else {
      normals[i] = 0
      normals[i + 1] = 1
      normals[i + 2] = 0
    }
  }
}

// A PNG thumbnail of a converted model, made without a GPU: the output GLB's triangles (at most
// THUMBNAIL_LIMITS.maxTriangles of them, sampled evenly) drawn by a small software rasterizer —
// orthographic three-quarter view fitted to the model, z-buffer, flat Lambert shading per triangle,
// rendered at twice the size and scaled down by sharp for smooth edges. Runs in the conversion child.
import type { Document, Material, Mesh, Node } from '@gltf-transform/core'
import type { InstancedMesh } from '@gltf-transform/extensions'
import { pipelineIO } from './pipeline/io.ts'
import { viewedScene } from './pipeline/scene-tree.ts'
import { rasterize, type Soup } from './thumbnail-raster.ts'

const THUMBNAIL_LIMITS = {
  /** Side of the PNG, in pixels. */
  size: 256,
  /** Triangles drawn at most: a bigger model is sampled (every k-th triangle). */
  maxTriangles: 2_000_000,
  /** Drawing stops here, whatever is left (huge overlapping triangles): the thumbnail is partial. */
  maxDrawMs: 20_000,
}

const SUPERSAMPLE = 2
const TRIANGLES = 4
const POINTS = 0
/** Colour of textured (or unlit, material-less) surfaces: linear RGB. */
const NEUTRAL: [number, number, number] = [0.72, 0.74, 0.78]

type Mat4 = Float32Array | number[]

/** The PNG bytes of the GLB's thumbnail (transparent background). */
export async function renderThumbnail(glb: Uint8Array): Promise<Uint8Array> {
  const document = await (await pipelineIO()).readBinary(glb)
  const soup = collectGeometry(document)
  const side = THUMBNAIL_LIMITS.size * SUPERSAMPLE
  const rgba = rasterize(soup, side, Date.now() + THUMBNAIL_LIMITS.maxDrawMs)
  const { default: sharp } = await import('sharp')
  const png = await sharp(rgba, { raw: { width: side, height: side, channels: 4 } })
    .resize(THUMBNAIL_LIMITS.size, THUMBNAIL_LIMITS.size)
    .png({ compressionLevel: 9 })
    .toBuffer()
  return new Uint8Array(png)
}

interface Placed {
  mesh: Mesh
  matrices: Mat4[]
}

function placedMeshes(document: Document): Placed[] {
  const placed: Placed[] = []
  viewedScene(document)?.traverse((node: Node) => {
    const mesh = node.getMesh()
    if (!mesh) return
    const world = node.getWorldMatrix()
    const batch = node.getExtension<InstancedMesh>('EXT_mesh_gpu_instancing')
    placed.push({ mesh, matrices: batch ? instanceMatrices(batch, world) : [world] })
  })
  return placed
}

function collectGeometry(document: Document): Soup {
  const placed = placedMeshes(document)
  let total = 0
  let totalPoints = 0
  for (const { mesh, matrices } of placed) {
    for (const primitive of mesh.listPrimitives()) {
      const count = primitive.getIndices()?.getCount() ?? primitive.getAttribute('POSITION')?.getCount() ?? 0
      if (primitive.getMode() === TRIANGLES) total += Math.floor(count / 3) * matrices.length
      if (primitive.getMode() === POINTS) totalPoints += count * matrices.length
    }
  }
  const stride = Math.max(1, Math.ceil(total / THUMBNAIL_LIMITS.maxTriangles))
  const pointStride = Math.max(1, Math.ceil(totalPoints / THUMBNAIL_LIMITS.maxTriangles))
  const soup: Soup = {
    triangles: new Float32Array(Math.ceil(total / stride) * 9 + 9),
    colors: new Float32Array(Math.ceil(total / stride) * 3 + 3),
    points: new Float32Array(Math.ceil(totalPoints / pointStride) * 3 + 3),
    triangleCount: 0,
    pointCount: 0,
  }
  let seen = 0
  let seenPoints = 0
  const local: number[] = [0, 0, 0]
  for (const { mesh, matrices } of placed) {
    for (const primitive of mesh.listPrimitives()) {
      const position = primitive.getAttribute('POSITION')
      if (!position) continue
      const color = materialColor(primitive.getMaterial())
      const indices = primitive.getIndices()?.getArray()
      const count = indices?.length ?? position.getCount()
      const vertexAt = (i: number): number => (indices ? (indices[i] ?? 0) : i)
      for (const matrix of matrices) {
        if (primitive.getMode() === POINTS) {
          for (let i = 0; i < count; i++, seenPoints++) {
            if (seenPoints % pointStride !== 0) continue
            position.getElement(vertexAt(i), local)
            transformInto(soup.points, soup.pointCount++ * 3, local, matrix)
          }
          continue
        }
        if (primitive.getMode() !== TRIANGLES) continue
        for (let t = 0; t + 2 < count; t += 3, seen++) {
          if (seen % stride !== 0) continue
          const at = soup.triangleCount * 9
          for (let k = 0; k < 3; k++) {
            position.getElement(vertexAt(t + k), local)
            transformInto(soup.triangles, at + k * 3, local, matrix)
          }
          soup.colors.set(color, soup.triangleCount * 3)
          soup.triangleCount++
        }
      }
    }
  }
  return soup
}

function materialColor(material: Material | null): [number, number, number] {
  if (!material || material.getBaseColorTexture()) return NEUTRAL
  const [r = 1, g = 1, b = 1] = material.getBaseColorFactor()
  return [r, g, b]
}

function transformInto(out: Float32Array, at: number, p: number[], m: Mat4): void {
  const x = p[0] ?? 0
  const y = p[1] ?? 0
  const z = p[2] ?? 0
  out[at] = (m[0] ?? 0) * x + (m[4] ?? 0) * y + (m[8] ?? 0) * z + (m[12] ?? 0)
  out[at + 1] = (m[1] ?? 0) * x + (m[5] ?? 0) * y + (m[9] ?? 0) * z + (m[13] ?? 0)
  out[at + 2] = (m[2] ?? 0) * x + (m[6] ?? 0) * y + (m[10] ?? 0) * z + (m[14] ?? 0)
}

/** World matrices of EXT_mesh_gpu_instancing instances: node world × instance TRS. */
function instanceMatrices(batch: InstancedMesh, world: Mat4): Mat4[] {
  const t = batch.getAttribute('TRANSLATION')
  const r = batch.getAttribute('ROTATION')
  const s = batch.getAttribute('SCALE')
  const count = (t ?? r ?? s)?.getCount() ?? 0
  const matrices: Mat4[] = []
  for (let i = 0; i < count; i++) {
    const [tx = 0, ty = 0, tz = 0] = t ? t.getElement(i, [0, 0, 0]) : []
    const [qx = 0, qy = 0, qz = 0, qw = 1] = r ? r.getElement(i, [0, 0, 0, 1]) : []
    const [sx = 1, sy = 1, sz = 1] = s ? s.getElement(i, [1, 1, 1]) : []
    // Column-major TRS, as glTF stores node matrices.
    const local = [
      (1 - 2 * (qy * qy + qz * qz)) * sx,
      2 * (qx * qy + qz * qw) * sx,
      2 * (qx * qz - qy * qw) * sx,
      0,
      2 * (qx * qy - qz * qw) * sy,
      (1 - 2 * (qx * qx + qz * qz)) * sy,
      2 * (qy * qz + qx * qw) * sy,
      0,
      2 * (qx * qz + qy * qw) * sz,
      2 * (qy * qz - qx * qw) * sz,
      (1 - 2 * (qx * qx + qy * qy)) * sz,
      0,
      tx,
      ty,
      tz,
      1,
    ]
    matrices.push(multiply(world, local))
  }
  return matrices
}

function multiply(a: Mat4, b: Mat4): number[] {
  const out = new Array<number>(16).fill(0)
  for (let col = 0; col < 4; col++) {
    for (let row = 0; row < 4; row++) {
      let sum = 0
      for (let k = 0; k < 4; k++) sum += (a[k * 4 + row] ?? 0) * (b[col * 4 + k] ?? 0)
      out[col * 4 + row] = sum
    }
  }
  return out
}

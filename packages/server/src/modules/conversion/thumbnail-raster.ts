// The thumbnail's rasterizer (see thumbnail.ts): orthographic three-quarter view fitted to the
// geometry's projected extent, z-buffer, flat two-sided Lambert shading per triangle.

/** Geometry in world space: 9 floats per triangle with its colour (linear RGB), 3 per point. */
export interface Soup {
  triangles: Float32Array
  colors: Float32Array
  points: Float32Array
  triangleCount: number
  pointCount: number
}

type Vec3 = [number, number, number]

function normalize(v: Vec3): Vec3 {
  const length = Math.hypot(v[0], v[1], v[2]) || 1
  return [v[0] / length, v[1] / length, v[2] / length]
}

function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/** From the model towards the eye: front-right, from above (glTF is Y-up). */
const EYE = normalize([1, 0.8, 1.2])
const RIGHT = normalize(cross([0, 1, 0], EYE))
const UP = cross(EYE, RIGHT)
/** From over the viewer's left shoulder. */
const LIGHT = normalize([
  EYE[0] + 0.5 * UP[0] - 0.4 * RIGHT[0],
  EYE[1] + 0.5 * UP[1] - 0.4 * RIGHT[1],
  EYE[2] + 0.5 * UP[2] - 0.4 * RIGHT[2],
])
const AMBIENT = 0.3
/** Of the image side, the model's larger projected extent fills this much. */
const FILL = 0.9

interface View {
  side: number
  scale: number
  cx: number
  cy: number
}

/** Screen x, y and depth (larger = nearer) of world point `at` in `data`. */
function project(data: Float32Array, at: number, view: View, out: Float32Array, o: number): void {
  const x = data[at] ?? 0
  const y = data[at + 1] ?? 0
  const z = data[at + 2] ?? 0
  const sx = x * RIGHT[0] + y * RIGHT[1] + z * RIGHT[2]
  const sy = x * UP[0] + y * UP[1] + z * UP[2]
  out[o] = view.side / 2 + (sx - view.cx) * view.scale
  out[o + 1] = view.side / 2 - (sy - view.cy) * view.scale
  out[o + 2] = x * EYE[0] + y * EYE[1] + z * EYE[2]
}

function fit(soup: Soup, side: number): View {
  let minX = Infinity
  let minY = Infinity
  let maxX = -Infinity
  let maxY = -Infinity
  const extend = (data: Float32Array, floats: number): void => {
    for (let at = 0; at < floats; at += 3) {
      const x = data[at] ?? 0
      const y = data[at + 1] ?? 0
      const z = data[at + 2] ?? 0
      const sx = x * RIGHT[0] + y * RIGHT[1] + z * RIGHT[2]
      const sy = x * UP[0] + y * UP[1] + z * UP[2]
      minX = Math.min(minX, sx)
      maxX = Math.max(maxX, sx)
      minY = Math.min(minY, sy)
      maxY = Math.max(maxY, sy)
    }
  }
  extend(soup.triangles, soup.triangleCount * 9)
  extend(soup.points, soup.pointCount * 3)
  if (minX > maxX) return { side, scale: 1, cx: 0, cy: 0 }
  const extent = Math.max(maxX - minX, maxY - minY) || 1
  return { side, scale: (side * FILL) / extent, cx: (minX + maxX) / 2, cy: (minY + maxY) / 2 }
}

/** RGBA pixels (side × side, transparent background); stops drawing at `deadline` (epoch ms). */
export function rasterize(soup: Soup, side: number, deadline: number): Buffer {
  const view = fit(soup, side)
  const rgba = Buffer.alloc(side * side * 4)
  const depth = new Float32Array(side * side).fill(-Infinity)
  const screen = new Float32Array(9)
  for (let t = 0; t < soup.triangleCount; t++) {
    if ((t & 1023) === 0 && Date.now() > deadline) break
    for (let k = 0; k < 3; k++) project(soup.triangles, t * 9 + k * 3, view, screen, k * 3)
    const shade = lambert(soup.triangles, t * 9)
    const color: Vec3 = [
      toSrgb((soup.colors[t * 3] ?? 1) * shade),
      toSrgb((soup.colors[t * 3 + 1] ?? 1) * shade),
      toSrgb((soup.colors[t * 3 + 2] ?? 1) * shade),
    ]
    fillTriangle(screen, color, { rgba, depth, side })
  }
  const point = new Float32Array(3)
  const pointColor: Vec3 = [toSrgb(0.45), toSrgb(0.5), toSrgb(0.6)]
  for (let p = 0; p < soup.pointCount; p++) {
    if ((p & 1023) === 0 && Date.now() > deadline) break
    project(soup.points, p * 3, view, point, 0)
    const x0 = Math.floor(point[0] ?? 0)
    const y0 = Math.floor(point[1] ?? 0)
    for (let y = y0; y < y0 + 2; y++) {
      for (let x = x0; x < x0 + 2; x++) plot({ rgba, depth, side }, x, y, point[2] ?? 0, pointColor)
    }
  }
  return rgba
}

interface Target {
  rgba: Buffer
  depth: Float32Array
  side: number
}

function plot(target: Target, x: number, y: number, z: number, color: Vec3): void {
  if (x < 0 || y < 0 || x >= target.side || y >= target.side) return
  const pixel = y * target.side + x
  if (z <= (target.depth[pixel] ?? Infinity)) return
  target.depth[pixel] = z
  target.rgba[pixel * 4] = color[0]
  target.rgba[pixel * 4 + 1] = color[1]
  target.rgba[pixel * 4 + 2] = color[2]
  target.rgba[pixel * 4 + 3] = 255
}

/** Two-sided: exported meshes' winding is not to be trusted, and a thumbnail has no back faces. */
function lambert(data: Float32Array, at: number): number {
  const e1: Vec3 = [
    (data[at + 3] ?? 0) - (data[at] ?? 0),
    (data[at + 4] ?? 0) - (data[at + 1] ?? 0),
    (data[at + 5] ?? 0) - (data[at + 2] ?? 0),
  ]
  const e2: Vec3 = [
    (data[at + 6] ?? 0) - (data[at] ?? 0),
    (data[at + 7] ?? 0) - (data[at + 1] ?? 0),
    (data[at + 8] ?? 0) - (data[at + 2] ?? 0),
  ]
  const n = normalize(cross(e1, e2))
  return AMBIENT + (1 - AMBIENT) * Math.abs(n[0] * LIGHT[0] + n[1] * LIGHT[1] + n[2] * LIGHT[2])
}

function toSrgb(linear: number): number {
  return Math.round(255 * Math.min(1, Math.max(0, linear)) ** (1 / 2.2))
}

/** Edge-function fill over the triangle's pixel box, depth interpolated, pixel centres sampled. */
function fillTriangle(s: Float32Array, color: Vec3, target: Target): void {
  const [x0 = 0, y0 = 0, z0 = 0, x1 = 0, y1 = 0, z1 = 0, x2 = 0, y2 = 0, z2 = 0] = s
  const area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
  if (area === 0 || !Number.isFinite(area)) return
  const minX = Math.max(0, Math.floor(Math.min(x0, x1, x2)))
  const maxX = Math.min(target.side - 1, Math.ceil(Math.max(x0, x1, x2)))
  const minY = Math.max(0, Math.floor(Math.min(y0, y1, y2)))
  const maxY = Math.min(target.side - 1, Math.ceil(Math.max(y0, y1, y2)))
  for (let y = minY; y <= maxY; y++) {
    const py = y + 0.5
    for (let x = minX; x <= maxX; x++) {
      const px = x + 0.5
      const w0 = ((x1 - px) * (y2 - py) - (x2 - px) * (y1 - py)) / area
      const w1 = ((x2 - px) * (y0 - py) - (x0 - px) * (y2 - py)) / area
      const w2 = 1 - w0 - w1
      if (w0 < 0 || w1 < 0 || w2 < 0) continue
      plot(target, x, y, w0 * z0 + w1 * z1 + w2 * z2, color)
    }
  }
}

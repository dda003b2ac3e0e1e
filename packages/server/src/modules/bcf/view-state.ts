// The parts of a saved view and of an annotation that BCF carries, read from Tessera's records as
// the console reads them (docs/console.md, "The viewer's tools": a malformed entry is skipped, never
// an error), and written back into the fields of a new record.
import type { AnnotationRecordShape, ConfigurationRecordShape } from '../../contract/index.ts'
import type { Pose, SectionBox, SectionPlane } from './geometry.ts'
import type { Vec3 } from './model.ts'

export interface ViewParts {
  pose?: Pose
  selected: string[]
  hidden: string[]
  planes: SectionPlane[]
  box?: SectionBox
}

type Entry = Record<string, unknown>

const isVec3 = (v: unknown): v is Vec3 =>
  Array.isArray(v) && v.length === 3 && v.every((n) => typeof n === 'number' && Number.isFinite(n))

const entries = (value: unknown): Entry[] =>
  Array.isArray(value)
    ? value.filter((e): e is Entry => typeof e === 'object' && e !== null && !Array.isArray(e))
    : []

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? [...new Set(value.filter((v): v is string => typeof v === 'string'))] : []

function poseOf(record: ConfigurationRecordShape): Pose | undefined {
  const p = record.cameraPosition
  const position = p.slice(0, 3)
  const target = p.slice(3, 6)
  if (!isVec3(position) || !isVec3(target)) return undefined
  const type = record.cameraType
  const orthographic = type === 1 || (typeof type === 'string' && type.toLowerCase() === 'orthographic')
  return {
    position,
    target,
    projection: orthographic ? 'orthographic' : 'perspective',
    fovIndex: record.cameraFoVIndex,
  }
}

function sectionOf(record: ConfigurationRecordShape): Pick<ViewParts, 'planes' | 'box'> {
  if (!record.clippingPlanesEnabled) return { planes: [] }
  const on = entries(record.enabledClippingPlanes).filter((e) => e.enabled !== false)
  const planes = on
    .filter((e) => e.type === 'plane' && isVec3(e.normal) && typeof e.constant === 'number')
    .map((e) => ({ normal: e.normal as Vec3, constant: e.constant as number }))
    .filter((p) => Math.hypot(...p.normal) > 1e-9 && Number.isFinite(p.constant))
  const box = on.find((e) => e.type === 'box' && isVec3(e.min) && isVec3(e.max))
  return { planes, ...(box ? { box: { min: box.min as Vec3, max: box.max as Vec3 } } : {}) }
}

/** What of a saved view BCF carries. */
export function viewParts(record: ConfigurationRecordShape): ViewParts {
  const pose = poseOf(record)
  const hidden = record.modifiersEnabled
    ? entries(record.modifiers).flatMap((m) => (m.type === 'hidden' ? strings(m.nodes) : []))
    : []
  return {
    ...(pose ? { pose } : {}),
    selected: strings(record.selectedNodes),
    hidden: [...new Set(hidden)],
    ...sectionOf(record),
  }
}

/** The fields of a new saved view showing `parts`. */
export function viewFields(parts: ViewParts) {
  const { pose } = parts
  const section = [
    ...parts.planes.map((p, i) => ({
      type: 'plane',
      id: `plane-${i + 1}`,
      normal: p.normal,
      constant: p.constant,
      enabled: true,
    })),
    ...(parts.box ? [{ type: 'box', id: 'box', min: parts.box.min, max: parts.box.max, enabled: true }] : []),
  ]
  return {
    cameraPosition: pose ? [...pose.position, ...pose.target] : [],
    cameraType: pose?.projection ?? null,
    cameraFoVIndex: pose?.fovIndex ?? 0,
    selectedNodes: parts.selected,
    rememberSelection: true,
    modifiers: parts.hidden.length ? [{ type: 'hidden', nodes: parts.hidden }] : [],
    modifiersEnabled: parts.hidden.length > 0,
    enabledClippingPlanes: section,
    clippingPlanesEnabled: section.length > 0,
  }
}

interface PointTarget {
  type: 'point'
  position: Vec3
  node: string | null
  cameraTarget: Vec3
}

/** The camera and the node of an annotation placed on the model (the console's `targets[0]`). */
export function annotationView(a: AnnotationRecordShape): { pose: Pose; node: string | null } | null {
  const t = entries(a.targets)[0]
  if (t?.type !== 'point' || !isVec3(t.position)) return null
  const target = isVec3(t.cameraTarget) ? t.cameraTarget : t.position
  const position: Vec3 = [a.cameraX, a.cameraY, a.cameraZ]
  const node = typeof t.node === 'string' ? t.node : null
  return { pose: { position, target, projection: 'perspective', fovIndex: 0 }, node }
}

/** `targets` of an annotation imported with the camera `pose`: its marker at what the camera looks at. */
export function annotationTargets(pose: Pose, node: string | null): PointTarget[] {
  return [{ type: 'point', position: pose.target, node, cameraTarget: pose.target }]
}

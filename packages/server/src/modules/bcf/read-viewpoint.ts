// A viewpoint file (.bcfv) of BCF 2.1 or 3.0 into the neutral model. The versions differ here only
// in where ViewSetupHints sit and in 3.0's AspectRatio, neither of which Tessera reads; a value that
// is missing or not a number drops its part (the camera, a plane), with a note, not the import.
import { AppError } from '../../platform/errors.ts'
import { BCF_MAX_COMPONENTS, BCF_MAX_PLANES } from './limits.ts'
import type { BcfCamera, BcfComponent, BcfPlane, BcfViewpoint, Vec3 } from './model.ts'
import { all, attr, first, text, type XmlElement } from './xml.ts'

export type Note = (message: string) => void

function number(element: XmlElement | undefined, name: string): number | undefined {
  const value = text(element, name)
  if (value === undefined || value.trim() === '') return undefined
  const n = Number(value.trim())
  return Number.isFinite(n) ? n : undefined
}

function vector(element: XmlElement | undefined, name: string): Vec3 | undefined {
  const v = first(element, name)
  const xyz = [number(v, 'X'), number(v, 'Y'), number(v, 'Z')]
  return xyz.every((n) => n !== undefined) ? (xyz as Vec3) : undefined
}

function components(list: XmlElement | undefined, counted: { n: number }): BcfComponent[] {
  const out: BcfComponent[] = []
  for (const c of all(list, 'Component')) {
    counted.n += 1
    if (counted.n > BCF_MAX_COMPONENTS) {
      throw new AppError('BCF_INVALID', `A viewpoint names more than ${BCF_MAX_COMPONENTS} components.`)
    }
    const ifcGuid = attr(c, 'IfcGuid')?.trim()
    const originatingSystem = text(c, 'OriginatingSystem')?.trim()
    const authoringToolId = text(c, 'AuthoringToolId')?.trim()
    out.push({
      ...(ifcGuid ? { ifcGuid } : {}),
      ...(originatingSystem ? { originatingSystem } : {}),
      ...(authoringToolId ? { authoringToolId } : {}),
    })
  }
  return out
}

function camera(root: XmlElement, note: Note): BcfCamera | undefined {
  const perspective = first(root, 'PerspectiveCamera')
  const element = perspective ?? first(root, 'OrthogonalCamera')
  if (!element) return undefined
  const position = vector(element, 'CameraViewPoint')
  const direction = vector(element, 'CameraDirection')
  const up = vector(element, 'CameraUpVector') ?? [0, 0, 1]
  const fieldOfView = number(element, 'FieldOfView') ?? 60
  const viewToWorldScale = number(element, 'ViewToWorldScale') ?? 0
  if (!position || !direction || (!perspective && !(viewToWorldScale > 0))) {
    note('a camera without a position, a direction or (orthographic) a scale was left out')
    return undefined
  }
  const kind = perspective ? 'perspective' : 'orthographic'
  // BCF 2.1 has no AspectRatio; 3.0 says to read such a camera as 1.0.
  const aspectRatio = number(element, 'AspectRatio') ?? 1
  return { kind, position, direction, up, fieldOfView, viewToWorldScale, aspectRatio }
}

function planes(root: XmlElement, note: Note): BcfPlane[] {
  const out: BcfPlane[] = []
  for (const plane of all(first(root, 'ClippingPlanes'), 'ClippingPlane')) {
    const location = vector(plane, 'Location')
    const direction = vector(plane, 'Direction')
    if (!location || !direction) note('a clipping plane without a location or a direction was left out')
    else if (out.length >= BCF_MAX_PLANES) return out
    else out.push({ location, direction })
  }
  return out
}

/** The viewpoint in a .bcfv's document (its GUID is the markup's, given as `guid`). */
export function readViewpoint(
  document: XmlElement,
  guid: string,
  note: Note,
): Omit<BcfViewpoint, 'snapshot'> {
  const root = first(document, 'VisualizationInfo')
  if (!root) throw new AppError('BCF_INVALID', 'A viewpoint file has no VisualizationInfo.')
  const list = first(root, 'Components')
  const visibility = first(list, 'Visibility')
  const counted = { n: 0 }
  const cam = camera(root, note)
  if (first(list, 'Coloring') || first(root, 'Lines') || first(root, 'Bitmaps') || first(root, 'Bitmap')) {
    note(
      `viewpoint ${guid}: component colours, lines and bitmaps have no place in a saved view and were left out`,
    )
  }
  return {
    guid,
    ...(cam ? { camera: cam } : {}),
    selection: components(first(list, 'Selection'), counted),
    // BCF's default: every component visible.
    defaultVisibility: !['false', '0'].includes(attr(visibility, 'DefaultVisibility')?.trim() ?? ''),
    exceptions: components(first(visibility, 'Exceptions'), counted),
    planes: planes(root, note),
  }
}

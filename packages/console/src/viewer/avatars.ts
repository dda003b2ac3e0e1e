// The others of a live session in 3D: each one's camera as a small pyramid in their colour, its apex
// where their eye is and its base toward what they look at, with a sphere at the eye and their name
// on a label above. Positions glide to each new camera (a camera arrives up to 20 times a second:
// moving in jumps would flicker), and a participant who leaves is removed at once.
import * as THREE from 'three'
import type { Vec3 } from './engine.ts'

export interface Avatar {
  id: string
  name: string
  color: string
  position: Vec3
  target: Vec3
}

/** How much of the remaining way an avatar covers each frame (about 150 ms to settle at 60 fps). */
const GLIDE = 0.25
const LABEL_PX = 28
/** The label's height, in units of the view's half height over tan(fov/2): about 4 % of the view. */
const LABEL_SCREEN = 0.035

interface Entry {
  object: THREE.Group
  size: number
  color: string
  name: string
  position: THREE.Vector3
  target: THREE.Vector3
  goalPosition: THREE.Vector3
  goalTarget: THREE.Vector3
}

/** The name drawn white on the participant's colour, on a canvas the sprite shows. */
function labelTexture(name: string, color: string): { texture: THREE.CanvasTexture; aspect: number } {
  const canvas = document.createElement('canvas')
  const ctx = canvas.getContext('2d') as CanvasRenderingContext2D
  const font = `600 ${LABEL_PX}px system-ui, sans-serif`
  ctx.font = font
  const text = name.length > 24 ? `${name.slice(0, 23)}…` : name
  canvas.width = Math.ceil(ctx.measureText(text).width) + 20
  canvas.height = LABEL_PX + 14
  ctx.font = font
  ctx.fillStyle = color
  ctx.beginPath()
  ctx.roundRect(0, 0, canvas.width, canvas.height, 8)
  ctx.fill()
  ctx.fillStyle = '#ffffff'
  ctx.textBaseline = 'middle'
  ctx.fillText(text, 10, canvas.height / 2 + 1)
  const texture = new THREE.CanvasTexture(canvas)
  texture.colorSpace = THREE.SRGBColorSpace
  return { texture, aspect: canvas.width / canvas.height }
}

function disposeTree(root: THREE.Object3D): void {
  root.traverse((o) => {
    const drawn = o as THREE.Mesh | THREE.Sprite | THREE.LineSegments
    if (!('material' in drawn)) return
    drawn.geometry?.dispose()
    for (const m of Array.isArray(drawn.material) ? drawn.material : [drawn.material]) {
      ;(m as THREE.SpriteMaterial).map?.dispose()
      m.dispose()
    }
  })
}

export class AvatarLayer {
  readonly group = new THREE.Group()
  private readonly entries = new Map<string, Entry>()

  /** Add, move or remove avatars so that exactly `avatars` are drawn, each `size` world units long. */
  set(avatars: Avatar[], size: number): void {
    const keep = new Set(avatars.map((a) => a.id))
    for (const [id, entry] of this.entries) {
      if (keep.has(id)) continue
      entry.object.removeFromParent()
      disposeTree(entry.object)
      this.entries.delete(id)
    }
    for (const avatar of avatars) {
      let entry = this.entries.get(avatar.id)
      if (entry && (entry.color !== avatar.color || entry.name !== avatar.name)) {
        entry.object.removeFromParent()
        disposeTree(entry.object)
        entry = undefined
      }
      if (!entry) {
        entry = this.create(avatar, size)
        this.entries.set(avatar.id, entry)
      }
      entry.goalPosition.set(...avatar.position)
      entry.goalTarget.set(...avatar.target)
    }
  }

  /** One frame of gliding; true while some avatar is still on its way. */
  step(): boolean {
    let moving = false
    for (const entry of this.entries.values()) {
      const far =
        entry.position.distanceToSquared(entry.goalPosition) +
        entry.target.distanceToSquared(entry.goalTarget)
      if (far < 1e-10) {
        entry.position.copy(entry.goalPosition)
        entry.target.copy(entry.goalTarget)
      } else {
        entry.position.lerp(entry.goalPosition, GLIDE)
        entry.target.lerp(entry.goalTarget, GLIDE)
        moving = true
      }
      this.place(entry)
    }
    return moving
  }

  /** Where each avatar is drawn now (tests read it through the viewer's data attributes). */
  drawn(): { id: string; position: Vec3 }[] {
    return [...this.entries].map(([id, e]) => ({ id, position: [e.position.x, e.position.y, e.position.z] }))
  }

  /** How far from `center` the farthest avatar reaches (0 with none): the clip planes must hold it. */
  reach(center: THREE.Vector3): number {
    let far = 0
    for (const e of this.entries.values()) far = Math.max(far, e.position.distanceTo(center) + e.size)
    return far
  }

  clear(): void {
    this.set([], 1)
  }

  private place(entry: Entry): void {
    entry.object.position.copy(entry.position)
    if (entry.position.distanceToSquared(entry.target) > 1e-12) entry.object.lookAt(entry.target)
  }

  private create(avatar: Avatar, size: number): Entry {
    const color = new THREE.Color(avatar.color)
    const object = new THREE.Group()
    object.name = `avatar:${avatar.id}`
    // A four-sided cone, apex at the origin, opening along +z (lookAt turns +z to the target).
    const body = new THREE.ConeGeometry(size * 0.45, size, 4, 1, true)
    body.rotateX(-Math.PI / 2)
    body.rotateZ(Math.PI / 4)
    body.translate(0, 0, size / 2)
    const shell = new THREE.Mesh(
      body,
      new THREE.MeshBasicMaterial({ color, transparent: true, opacity: 0.35, side: THREE.DoubleSide }),
    )
    const edges = new THREE.LineSegments(
      new THREE.EdgesGeometry(body),
      new THREE.LineBasicMaterial({ color }),
    )
    const eye = new THREE.Mesh(
      new THREE.SphereGeometry(size * 0.14, 16, 12),
      new THREE.MeshBasicMaterial({ color }),
    )
    const { texture, aspect } = labelTexture(avatar.name, avatar.color)
    // Labels are never hidden by the model (whoever it is, you can see where they are), and keep
    // one size on screen (a fraction of the view's height), near or far: a name stays readable.
    const label = new THREE.Sprite(
      new THREE.SpriteMaterial({ map: texture, depthTest: false, sizeAttenuation: false }),
    )
    label.scale.set(LABEL_SCREEN * aspect, LABEL_SCREEN, 1)
    // Anchored by its bottom edge just above the eye: the label never covers the pyramid.
    label.center.set(0.5, 0)
    label.position.set(0, size * 0.3, 0)
    label.renderOrder = 30
    for (const part of [shell, edges, eye, label]) {
      // Picking goes to the model and the markers, never to someone's avatar.
      part.raycast = () => {}
      object.add(part)
    }
    this.group.add(object)
    const position = new THREE.Vector3(...avatar.position)
    const target = new THREE.Vector3(...avatar.target)
    const entry: Entry = {
      object,
      size,
      color: avatar.color,
      name: avatar.name,
      position,
      target,
      goalPosition: position.clone(),
      goalTarget: target.clone(),
    }
    this.place(entry)
    return entry
  }
}

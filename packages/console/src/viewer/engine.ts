// The 3D viewer: three.js, loaded only when a model is opened (dynamic import from the Viewer
// screen). Nodes are matched to the scene tree through `extras.tesseraId`, which GLTFLoader puts in
// `userData.tesseraId` (docs/conversion.md).
import * as THREE from 'three'
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js'
import { MeshoptDecoder } from 'three/examples/jsm/libs/meshopt_decoder.module.js'
import { DRACOLoader } from 'three/examples/jsm/loaders/DRACOLoader.js'
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js'
import { type Bounds, dolly, fitClipPlanes, limitZoom, orbit } from './camera.ts'
import { SelectionHighlight } from './highlight.ts'
import { type Marker, MarkerLayer } from './markers.ts'

export type Vec3 = [number, number, number]
export interface CameraState {
  position: Vec3
  target: Vec3
}
export interface Pick {
  nodeId: string | null
  point: Vec3
}
// Until the screen passes the theme's --viewer-bg (the light theme's value).
export const BACKGROUND = 0xeef1f5

function shown(object: THREE.Object3D): boolean {
  for (let o: THREE.Object3D | null = object; o; o = o.parent) if (!o.visible) return false
  return true
}

function vec(v: THREE.Vector3): Vec3 {
  return [v.x, v.y, v.z]
}

export class ViewerEngine {
  readonly renderer: THREE.WebGLRenderer
  readonly camera = new THREE.PerspectiveCamera(45, 1, 0.01, 1000)
  readonly controls: OrbitControls
  private readonly scene = new THREE.Scene()
  private readonly markers = new MarkerLayer()
  private readonly highlight = new SelectionHighlight()
  private bounds: Bounds = { center: new THREE.Vector3(), radius: 1 }
  private model: THREE.Object3D | null = null
  private readonly nodes = new Map<string, THREE.Object3D>()
  private dirty = true
  private frame = 0
  private flight: { from: CameraState; to: CameraState; start: number } | null = null
  private readonly observer: ResizeObserver
  private down: { x: number; y: number } | null = null
  radius = 1
  onPick: (pick: Pick, marker: string | null) => void = () => {}

  constructor(private readonly canvas: HTMLCanvasElement) {
    // preserveDrawingBuffer: screenshots and pixel checks read what was drawn.
    this.renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true })
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2))
    this.scene.background = new THREE.Color(BACKGROUND)
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x8a8f99, 2.2))
    const sun = new THREE.DirectionalLight(0xffffff, 1.6)
    sun.position.set(3, 5, 4)
    this.camera.add(sun)
    this.scene.add(this.camera, this.markers.group)
    this.controls = new OrbitControls(this.camera, canvas)
    this.controls.enableDamping = false
    this.controls.addEventListener('change', () => {
      fitClipPlanes(this.camera, this.controls, this.bounds)
      this.invalidate()
    })
    // Grabbing the camera ends a fly-to (an annotation opened): the flight would otherwise put the
    // camera back on its path at the next frame and undo the user's drag.
    this.controls.addEventListener('start', () => {
      this.flight = null
    })
    this.observer = new ResizeObserver(() => this.resize())
    this.observer.observe(canvas)
    canvas.addEventListener('pointerdown', this.pointerDown)
    canvas.addEventListener('pointerup', this.pointerUp)
    this.resize()
    this.loop()
  }

  /** Parse the optimized GLB (meshopt, maybe Draco; decoders served by the console itself). */
  async load(bytes: ArrayBuffer): Promise<void> {
    const draco = new DRACOLoader().setDecoderPath('/draco/')
    const loader = new GLTFLoader().setMeshoptDecoder(MeshoptDecoder).setDRACOLoader(draco)
    try {
      const gltf = await loader.parseAsync(bytes, '')
      this.model = gltf.scene
      this.scene.add(gltf.scene)
      gltf.scene.traverse((object) => {
        const id = object.userData.tesseraId
        if (typeof id === 'string' && !this.nodes.has(id)) this.nodes.set(id, object)
        if (object instanceof THREE.Mesh) {
          // Own materials per mesh: highlighting one part must not light up its instances.
          object.material = Array.isArray(object.material)
            ? object.material.map((m) => m.clone())
            : object.material.clone()
        }
      })
      const sphere = new THREE.Box3().setFromObject(gltf.scene).getBoundingSphere(new THREE.Sphere())
      this.radius = Math.max(sphere.radius, 1e-3)
      this.bounds = { center: sphere.center, radius: this.radius }
      limitZoom(this.controls, this.bounds)
      this.fit()
    } finally {
      draco.dispose()
    }
  }

  has(id: string): boolean {
    return this.nodes.has(id)
  }

  private meshes(root: THREE.Object3D | null): THREE.Mesh[] {
    const out: THREE.Mesh[] = []
    root?.traverse((o) => {
      if (o instanceof THREE.Mesh) out.push(o)
    })
    return out
  }

  select(id: string | null): void {
    this.highlight.show(this.meshes(id ? (this.nodes.get(id) ?? null) : null))
    this.invalidate()
  }

  /** While an annotation is placed: a crosshair, inline so that nothing else's cursor wins. */
  setPlacing(on: boolean): void {
    this.canvas.style.cursor = on ? 'crosshair' : ''
  }

  /** Keyboard orbit, in radians (left: azimuth, up: elevation). */
  orbit(left: number, up: number): void {
    this.flight = null
    orbit(this.camera, this.controls, left, up)
  }

  /** Keyboard zoom: < 1 closer, > 1 farther, within the model's limits. */
  zoom(factor: number): void {
    this.flight = null
    dolly(this.camera, this.controls, factor)
  }

  /** The background, a CSS colour: the screen passes the theme's `--viewer-bg` (styles.css). */
  setBackground(colour: string): void {
    this.scene.background = new THREE.Color(colour)
    this.invalidate()
  }

  setHidden(hidden: Iterable<string>): void {
    const set = new Set(hidden)
    for (const [id, object] of this.nodes) object.visible = !set.has(id)
    this.invalidate()
  }

  /** Frame the given node (or the whole visible model) in view. */
  fit(id?: string | null, animate = false): void {
    const root = id ? this.nodes.get(id) : this.model
    if (!root) return
    // The ResizeObserver reports later: take the canvas's current aspect now.
    this.resize()
    const box = new THREE.Box3()
    root.updateWorldMatrix(true, true)
    root.traverseVisible((o) => {
      if (o instanceof THREE.Mesh) box.expandByObject(o)
    })
    if (box.isEmpty()) box.setFromObject(root)
    if (box.isEmpty()) return
    const sphere = box.getBoundingSphere(new THREE.Sphere())
    // The narrower of the two fields of view decides (portrait screens: the horizontal one).
    const vertical = THREE.MathUtils.degToRad(this.camera.fov / 2)
    const horizontal = Math.atan(Math.tan(vertical) * this.camera.aspect)
    const distance = (sphere.radius / Math.sin(Math.min(vertical, horizontal))) * 1.1
    const direction = new THREE.Vector3(1, 0.8, 1.2).normalize()
    const position = sphere.center.clone().addScaledVector(direction, distance)
    this.setCamera({ position: vec(position), target: vec(sphere.center) }, animate)
  }

  getCamera(): CameraState {
    return { position: vec(this.camera.position), target: vec(this.controls.target) }
  }

  /** Move the camera; animated, it flies there in 600 ms. */
  setCamera(state: CameraState, animate = false): void {
    if (animate) {
      this.flight = { from: this.getCamera(), to: state, start: performance.now() }
    } else {
      this.flight = null
      this.camera.position.set(...state.position)
      this.controls.target.set(...state.target)
      this.controls.update()
    }
    this.invalidate()
  }

  setMarkers(markers: Marker[], active: string | null): void {
    this.markers.set(markers, active, this.radius * 0.025)
    this.invalidate()
  }

  private pointerDown = (event: PointerEvent): void => {
    this.down = { x: event.clientX, y: event.clientY }
  }

  /** A click (not a drag of the orbit controls) picks what is under the pointer. */
  private pointerUp = (event: PointerEvent): void => {
    const down = this.down
    this.down = null
    if (!down || Math.hypot(event.clientX - down.x, event.clientY - down.y) > 4) return
    const rect = this.canvas.getBoundingClientRect()
    const ndc = new THREE.Vector2(
      ((event.clientX - rect.left) / rect.width) * 2 - 1,
      -((event.clientY - rect.top) / rect.height) * 2 + 1,
    )
    const ray = new THREE.Raycaster()
    ray.setFromCamera(ndc, this.camera)
    // The raycaster ignores visibility: a hidden part (or a part under a hidden node) is skipped here.
    const hit = this.model ? ray.intersectObject(this.model, true).find((h) => shown(h.object)) : undefined
    const marker = this.markers.pick(ray, hit?.distance ?? Number.POSITIVE_INFINITY)
    if (marker) {
      this.onPick({ nodeId: null, point: vec(marker.point) }, marker.id)
      return
    }
    if (!hit) {
      this.onPick({ nodeId: null, point: [0, 0, 0] }, null)
      return
    }
    let object: THREE.Object3D | null = hit.object
    while (object && typeof object.userData.tesseraId !== 'string') object = object.parent
    this.onPick({ nodeId: (object?.userData.tesseraId as string) ?? null, point: vec(hit.point) }, null)
  }

  invalidate(): void {
    this.dirty = true
  }

  private resize(): void {
    const { clientWidth: w, clientHeight: h } = this.canvas
    if (w === 0 || h === 0) return
    this.renderer.setSize(w, h, false)
    const buffer = this.renderer.getDrawingBufferSize(new THREE.Vector2())
    this.highlight.setResolution(buffer.x, buffer.y)
    this.camera.aspect = w / h
    this.camera.updateProjectionMatrix()
    this.invalidate()
  }

  private loop = (): void => {
    this.frame = requestAnimationFrame(this.loop)
    if (this.flight) this.stepFlight()
    if (!this.dirty) return
    this.dirty = false
    this.renderer.render(this.scene, this.camera)
  }

  private stepFlight(): void {
    const flight = this.flight
    if (!flight) return
    const t = Math.min(1, (performance.now() - flight.start) / 600)
    const ease = t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2
    const lerp = (a: Vec3, b: Vec3): Vec3 => [
      a[0] + (b[0] - a[0]) * ease,
      a[1] + (b[1] - a[1]) * ease,
      a[2] + (b[2] - a[2]) * ease,
    ]
    this.camera.position.set(...lerp(flight.from.position, flight.to.position))
    this.controls.target.set(...lerp(flight.from.target, flight.to.target))
    this.controls.update()
    if (t >= 1) this.flight = null
    this.invalidate()
  }

  dispose(): void {
    cancelAnimationFrame(this.frame)
    this.observer.disconnect()
    this.canvas.removeEventListener('pointerdown', this.pointerDown)
    this.canvas.removeEventListener('pointerup', this.pointerUp)
    this.controls.dispose()
    this.highlight.dispose()
    this.markers.clear()
    this.scene.traverse((o) => {
      if (o instanceof THREE.Mesh) {
        o.geometry.dispose()
        for (const m of Array.isArray(o.material) ? o.material : [o.material]) m.dispose()
      }
    })
    this.renderer.dispose()
  }
}

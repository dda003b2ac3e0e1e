// The 3D viewer: three.js, loaded only when a model is opened (dynamic import from the Viewer
// screen). Nodes are matched to the scene tree through `extras.tesseraId`, which GLTFLoader puts in
// `userData.tesseraId` (docs/conversion.md).
import * as THREE from 'three'
import type { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js'
import { type Avatar, AvatarLayer } from './avatars.ts'
import { type Bounds, dolly, fitClipPlanes, framing, limitZoom, orbit, type ViewCamera } from './camera.ts'
import { CameraRig, type StandardView, studioLights } from './camera-rig.ts'
import { EnginePointer, type Pick } from './engine-pointer.ts'
import { type PeerSelection, PeerSelections } from './highlight.ts'
import { Instancing } from './instancing.ts'
import { boundsOf, disposeMeshes, meshesUnder, parseModel, rayThrough } from './load.ts'
import { type Marker, MarkerLayer } from './markers.ts'
import { PickIndex } from './picking.ts'
import { disposePreview } from './preview.ts'
import { exposeProbes } from './probes.ts'
import { EngineSelection, fitRoots } from './selection.ts'
import type { CameraSettings, CameraPose as CameraState } from './state/camera.ts'
import type { ViewSettings } from './state/index.ts'
import type { Vec3 } from './state/slice.ts'
import { makeTools, type Tools } from './tools/index.ts'
import type { ViewerContext, ViewerTool } from './tools/tool.ts'

export type { CameraState, Pick, StandardView, Vec3 }
// Until the screen passes the theme's --viewer-bg (the light theme's value).
export const BACKGROUND = 0xeef1f5

const GL_OPTIONS = { antialias: true, preserveDrawingBuffer: true, stencil: true }

export class ViewerEngine {
  readonly renderer: THREE.WebGLRenderer
  readonly controls: OrbitControls
  /** The perspective and orthographic cameras, the up vector, field of view and near plane. */
  private readonly rig: CameraRig
  private readonly scene = new THREE.Scene()
  private readonly markers = new MarkerLayer()
  private readonly avatars = new AvatarLayer()
  private readonly peers = new PeerSelections()
  private bounds: Bounds = { center: new THREE.Vector3(), radius: 1 }
  private model: THREE.Object3D | null = null
  /** The preview drawn while a model of many parts is built (many-parts.ts), until it is. */
  private preview: THREE.Group | null = null
  /** Aborted by dispose(): a model still being built is dropped. */
  private readonly lifetime = new AbortController()
  private readonly nodes = new Map<string, THREE.Object3D>()
  private dirty = true
  /** Bumped by sceneChanged() (ViewerContext): tools redo per-scene work only when it moved. */
  private version = 0
  private frame = 0
  private readonly observer: ResizeObserver
  private readonly pointer: EnginePointer
  /** The tools by slice name (a panel may ask its own tool what the model offers: layers.list()). */
  readonly tools: Tools
  /** The selected parts (selection.ts), and its box select (`selection.box`). */
  readonly selection: EngineSelection
  private readonly pickIndex = new PickIndex()
  /** Repeated parts drawn as one InstancedMesh per geometry and material (instancing.ts). */
  private readonly instancing: Instancing
  radius = 1
  onPick = (_pick: Pick, _marker: string | null): void => {}
  /** The user moved the camera (drag, wheel, keys, fit, fly-to): a follow ends there. */
  onUserMove = (): void => {}
  /** A model of many parts is on screen as a preview; the parts are being built. */
  onPreview = (): void => {}

  constructor(private readonly canvas: HTMLCanvasElement) {
    // preserveDrawingBuffer: screenshots and pixel checks read what was drawn; stencil: section caps.
    this.renderer = new THREE.WebGLRenderer({ canvas, ...GL_OPTIONS })
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2))
    this.scene.background = new THREE.Color(BACKGROUND)
    this.rig = new CameraRig(canvas, this.scene, studioLights(this.scene))
    this.scene.add(this.markers.group, this.avatars.group)
    this.controls = this.rig.controls
    this.controls.addEventListener('change', () => {
      this.rig.fitOrthographic()
      this.fitClip()
      this.invalidate()
    })
    // Grabbing the camera ends a fly-to (an annotation opened): the flight would otherwise put the
    // camera back on its path at the next frame and undo the user's drag.
    this.controls.addEventListener('start', () => this.userMoved())
    this.observer = new ResizeObserver(() => this.resize())
    this.observer.observe(canvas)
    this.selection = new EngineSelection(this.context())
    this.instancing = new Instancing(this.scene, () => this.selection.meshSet())
    // The loop brings the world matrices up to date itself, before the batches read them.
    this.scene.matrixWorldAutoUpdate = false
    this.tools = makeTools(this.context())
    this.pointer = new EnginePointer(canvas, {
      tools: () => this.toolList().map(({ tool }) => tool),
      rayAt: (x, y) => this.rayAt(x, y),
      hitOf: (ray) => (this.model ? this.pickIndex.hit(ray, this.model) : undefined),
      markers: this.markers,
      onPick: (pick, marker) => this.onPick(pick, marker),
    })
    // Tests: the state read back, a slice applied as a restored view would, the model's materials.
    exposeProbes(canvas, this.context(), this.pickIndex, this)
    this.resize()
    this.loop()
  }

  /** What the tools are given: the core's parts, behind functions where they change over time. */
  private context(): ViewerContext {
    return {
      scene: this.scene,
      renderer: this.renderer,
      canvas: this.canvas,
      controls: this.controls,
      camera: () => this.camera,
      model: () => this.model,
      node: (id) => this.nodes.get(id),
      nodes: () => this.nodes,
      meshesOf: (id) => meshesUnder(id === null ? this.model : (this.nodes.get(id) ?? null)),
      bounds: () => this.bounds,
      selected: () => this.selection.ids(),
      invalidate: () => this.invalidate(),
      sceneChanged: () => this.sceneChanged(),
      sceneVersion: () => this.version,
      partsMoved: () => {
        this.pickIndex.partsMoved()
        this.invalidate()
      },
      changeMaterials: (swap) => this.selection.reapplyAround(swap, () => this.sceneChanged()),
      pickAt: (x, y) => this.pickAt(x, y),
      rayAt: (x, y) => this.rayAt(x, y),
    }
  }

  private toolList(): { name: string; tool: ViewerTool<unknown> }[] {
    return Object.entries(this.tools).map(([name, tool]) => ({ name, tool: tool as ViewerTool<unknown> }))
  }

  /** The camera drawing now (perspective or orthographic: the view's `cameraType`). */
  get camera(): ViewCamera {
    return this.rig.camera
  }

  /** The perspective field of view in degrees (the orthographic camera's height follows it too). */
  fieldOfView(): number {
    return this.rig.perspective.fov
  }

  /** The view cube's CSS matrix3d (screens/tools/view-cube.tsx). */
  cubeMatrix(): number[] {
    return this.rig.cubeMatrix()
  }

  /** Set the tools from (part of) a saved view; slices not given stay as they are. */
  apply(view: Partial<ViewSettings>): void {
    if (view.camera) this.applyCamera(view.camera)
    const slices = view as Record<string, unknown>
    for (const { name, tool } of this.toolList()) {
      if (slices[name] !== undefined) tool.apply(slices[name])
    }
    this.sceneChanged()
  }

  /** Each tool's state read back from the scene (tests read it from the canvas: tesseraSnapshot()). */
  snapshot(): Record<string, unknown> {
    const out: Record<string, unknown> = { camera: this.rig.settings(), selection: this.selection.snapshot() }
    for (const { name, tool } of this.toolList()) out[name] = tool.snapshot()
    return out
  }

  /** Draw the optimized GLB (load.ts), framed in view; a model of many parts previewed first. */
  async load(bytes: ArrayBuffer): Promise<void> {
    const { signal } = this.lifetime
    const { root, nodes } = await parseModel(bytes, (preview) => this.showPreview(preview), signal)
    signal.throwIfAborted()
    // Where the first frame's time goes (bench/viewer.ts reads these marks).
    performance.mark('tessera:parsed')
    const previewed = this.preview !== null
    if (this.preview) disposePreview(this.preview)
    this.preview = null
    this.model = root
    this.scene.add(root)
    root.updateMatrixWorld(true)
    this.instancing.build(root)
    for (const [id, object] of nodes) this.nodes.set(id, object)
    // After a preview the camera stays where it is: the user may have turned it meanwhile.
    this.takeBounds(root, !previewed)
    for (const { tool } of this.toolList()) tool.modelLoaded?.()
    // After the first frame: the bounds trees build in idle time (picking.ts).
    this.pickIndex.build(root)
    performance.mark('tessera:loaded')
  }

  /** The preview of a model of many parts (many-parts.ts) drawn; resolves once it is on screen. */
  private async showPreview(preview: THREE.Group): Promise<void> {
    this.preview = preview
    this.scene.add(preview)
    preview.updateMatrixWorld(true)
    this.takeBounds(preview, true)
    // The loop draws it in the next frame callback; the browser shows it at the end of that frame.
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))
    performance.mark('tessera:preview')
    this.onPreview()
  }

  /** The model's bounds taken (zoom limits, clip planes), and the camera fitted to them if asked. */
  private takeBounds(object: THREE.Object3D, fit: boolean): void {
    this.bounds = boundsOf(object)
    this.radius = this.bounds.radius
    limitZoom(this.controls, this.bounds)
    if (fit) this.fit()
    else this.fitClip()
    this.invalidate()
  }

  /** Select exactly these parts (one id, several, or none). */
  select(ids: string | readonly string[] | null): void {
    this.selection.set(ids === null ? [] : typeof ids === 'string' ? [ids] : ids)
  }

  /** While an annotation is placed: a crosshair, inline so that nothing else's cursor wins. */
  setPlacing(on: boolean): void {
    this.canvas.style.cursor = on ? 'crosshair' : ''
  }

  /** Keyboard orbit, in radians (left: azimuth, up: elevation). */
  orbit(left: number, up: number): void {
    this.userMoved()
    orbit(this.camera, this.controls, left, up)
  }

  /** Keyboard zoom: < 1 closer, > 1 farther, within the model's limits. */
  zoom(factor: number): void {
    this.userMoved()
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
    this.sceneChanged()
  }

  /** Frame the given node(s) (none given: the whole visible model) in view. */
  fit(ids?: string | readonly string[] | null, animate = false): void {
    const roots = fitRoots(ids, this.nodes, this.model ?? this.preview)
    if (roots.length === 0) return
    // The ResizeObserver reports later: take the canvas's current aspect now.
    this.resize()
    const pose = framing(roots, this.rig.lens(), this.rig.from('iso'))
    if (pose) this.setCamera(pose, animate)
  }

  /** Projection, field of view, up and near plane; then the pose, when the view has one. */
  private applyCamera(settings: CameraSettings): void {
    this.rig.apply(settings)
    if (settings.pose) this.setCamera(settings.pose)
    this.fitClip()
    this.invalidate()
  }

  /** Look at the whole (visible) model from a standard direction, turned to the model's up. */
  standardView(view: StandardView, animate = true): void {
    if (!this.model) return
    this.resize()
    const pose = framing(this.model, this.rig.lens(), this.rig.from(view))
    if (pose) this.setCamera(pose, animate)
  }

  getCamera(): CameraState {
    return this.rig.pose()
  }

  /** Move the camera; animated, it flies there in 600 ms. */
  setCamera(state: CameraState, animate = false): void {
    this.userMoved()
    this.rig.moveTo(state, animate)
    this.invalidate()
  }

  private userMoved(): void {
    this.rig.stop()
    this.onUserMove()
  }

  /** Follow a camera (null: stop); the next own move stops it too. */
  follow(state: CameraState | null): void {
    this.rig.follow(state)
    this.invalidate()
  }

  /** The others (live sessions): avatars a fifth of the model's radius long, selections in their colour. */
  setPeers(avatars: Avatar[], selections: PeerSelection[]): void {
    this.avatars.set(avatars, this.radius * 0.2)
    this.peers.set(selections, (id) => meshesUnder(this.nodes.get(id) ?? null))
    this.sceneChanged()
  }

  /** What the others' avatars and selections look like now (tests read it through data attributes). */
  liveState(): { avatars: { id: string; position: Vec3 }[]; selections: Record<string, string[]> } {
    return { avatars: this.avatars.drawn(), selections: this.peers.state() }
  }

  /** The model's bounds for the clip planes, grown to hold the avatars. */
  private fitClip(): void {
    const reach = this.avatars.reach(this.bounds.center)
    const radius = Math.max(this.bounds.radius, reach / 1.5)
    fitClipPlanes(this.camera, this.controls, { center: this.bounds.center, radius }, this.rig.near)
  }

  setMarkers(markers: Marker[], active: string | null): void {
    if (this.markers.set(markers, active, this.radius * 0.025)) this.invalidate()
  }

  private rayAt(clientX: number, clientY: number): THREE.Raycaster {
    return rayThrough(this.canvas, this.camera, clientX, clientY)
  }

  private pickAt(clientX: number, clientY: number): THREE.Intersection | undefined {
    return this.model ? this.pickIndex.hit(this.rayAt(clientX, clientY), this.model) : undefined
  }

  invalidate(): void {
    this.dirty = true
  }

  private sceneChanged(): void {
    this.version++
    this.dirty = true
  }

  private resize(): void {
    const { clientWidth: w, clientHeight: h } = this.canvas
    if (w === 0 || h === 0) return
    this.renderer.setSize(w, h, false)
    const buffer = this.renderer.getDrawingBufferSize(new THREE.Vector2())
    this.selection.setResolution(buffer.x, buffer.y)
    this.peers.setResolution(buffer.x, buffer.y)
    this.rig.setAspect(w / h)
    this.invalidate()
  }

  private loop = (): void => {
    this.frame = requestAnimationFrame(this.loop)
    if (this.rig.step(performance.now())) this.invalidate()
    if (this.avatars.step()) {
      this.fitClip()
      this.invalidate()
    }
    const now = performance.now()
    for (const { tool } of this.toolList()) if (tool.beforeRender?.(now)) this.invalidate()
    if (!this.dirty) return
    this.dirty = false
    this.scene.updateMatrixWorld()
    this.instancing.beforeRender(this.camera.layers)
    try {
      this.renderer.render(this.scene, this.camera)
    } finally {
      this.instancing.afterRender()
    }
    if (this.model && performance.getEntriesByName('tessera:drawn').length === 0)
      performance.mark('tessera:drawn')
  }

  dispose(): void {
    this.lifetime.abort()
    cancelAnimationFrame(this.frame)
    this.pickIndex.dispose()
    this.instancing.dispose()
    this.observer.disconnect()
    this.pointer.dispose()
    for (const { tool } of this.toolList()) tool.dispose()
    this.controls.dispose()
    this.selection.dispose()
    this.markers.clear()
    this.avatars.clear()
    this.peers.dispose()
    disposeMeshes(this.scene)
    this.renderer.dispose()
  }
}

// What a viewer tool (section, measure, explode, ...) is given and what it answers. The engine
// (engine.ts) is the core: scene, camera, render loop, picking, selection. A tool owns one slice of
// the saved view (viewer/state/) and the three.js objects that draw it; the screens reach it only
// through the engine's apply() and snapshot().
import type * as THREE from 'three'
import type { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js'
import type { Bounds } from '../camera.ts'

export interface ViewerContext {
  readonly scene: THREE.Scene
  readonly renderer: THREE.WebGLRenderer
  readonly canvas: HTMLCanvasElement
  readonly controls: OrbitControls
  /** The camera drawing now: ask each time (the camera tool may swap perspective and orthographic). */
  camera(): THREE.PerspectiveCamera | THREE.OrthographicCamera
  /** The loaded model's root; null until load() ends. */
  model(): THREE.Object3D | null
  /** The object of a scene-tree node (its `tesseraId`). */
  node(id: string): THREE.Object3D | undefined
  /** Every scene-tree node the model has, by id. */
  nodes(): ReadonlyMap<string, THREE.Object3D>
  /** The meshes under a node (the whole model for null), outlines and helpers left out. */
  meshesOf(id: string | null): THREE.Mesh[]
  /** The model's bounding sphere (known once the model is loaded). */
  bounds(): Bounds
  /** The selected scene-tree nodes. */
  selected(): string[]
  /** Draw again at the next frame. */
  invalidate(): void
  /**
   * Call after changing what is drawn outside of apply() (visibility, layers, positions, outlines):
   * tools that follow the scene (section caps and cuts) catch up before the next frame.
   */
  sceneChanged(): void
  /** Parts moved (explode): picking refits its tree over the parts; draws again. */
  partsMoved(): void
  /** Counts sceneChanged() calls and applies: a tool redoes its per-scene work only when it moved. */
  sceneVersion(): number
  /**
   * Swap materials on the model's meshes (x-ray ghosts): the selection's lift comes off first, so a
   * copy is made of the part's own material, and goes back on the new ones; then sceneChanged().
   */
  changeMaterials(swap: () => void): void
  /** The first visible part under a point of the canvas (client coordinates), or undefined. */
  pickAt(clientX: number, clientY: number): THREE.Intersection | undefined
  /** A ray from the camera through a point of the canvas (client coordinates). */
  rayAt(clientX: number, clientY: number): THREE.Raycaster
}

export interface ViewerTool<S> {
  /** The model is in the scene and its bounds are known. */
  modelLoaded?(): void
  /** Set the tool from its slice of the view (a restored view, a panel's change). */
  apply(state: S): void
  /** The tool's state read back from what is drawn (tests compare it with what was applied). */
  snapshot(): S
  /** Called every animation frame; true when something moved and this frame must be drawn. */
  beforeRender?(now: number): boolean
  /**
   * A pointer event on the canvas. True when the tool took it (placing a measure point, dragging a
   * plane): the engine then neither picks nor orbits with it.
   */
  pointer?(event: PointerEvent, phase: 'down' | 'move' | 'up'): boolean
  dispose(): void
}

// Environment and rendering (slice "environment"): image-based lighting from a built-in
// environment (environment-maps.ts), its brightness and orientation, the environment drawn as the
// background (skybox), and the render mode (render-mode.ts). With the environment off the model is
// lit by the core's hemisphere and directional lights only, on the theme's flat background.
import * as THREE from 'three'
import { type EnvironmentSettings, environmentSlice, orientation } from '../state/environment.ts'
import { EnvironmentMaps } from './environment-maps.ts'
import { RenderModes } from './render-mode.ts'
import type { ViewerContext, ViewerTool } from './tool.ts'

/** What tests read besides the snapshot (canvas.tesseraEnvironment()): the GL cost and the edges. */
export interface EnvironmentDiagnostics {
  pmremMs: Record<string, number>
  edgeLines: number
  meshesWithoutEdges: number
}

/**
 * The core's hemisphere and directional lights are kept at this share of their strength while the
 * environment lights the model: added in full to the environment's light they wash colours out.
 */
const LIGHTS_UNDER_IBL = 0.25

export class EnvironmentTool implements ViewerTool<EnvironmentSettings> {
  private state = environmentSlice.defaults()
  private readonly maps: EnvironmentMaps
  private readonly modes = new RenderModes()
  /** The theme's colour (engine.setBackground), put back when the skybox goes off. */
  private theme: THREE.Color | null = null
  /** Each of the core's lights at full strength (the first time the tool saw it). */
  private readonly lights = new Map<THREE.Light, number>()

  constructor(private readonly context: ViewerContext) {
    this.maps = new EnvironmentMaps(context.renderer)
    Object.assign(context.canvas, { tesseraEnvironment: () => this.diagnostics() })
  }

  private get scene(): THREE.Scene {
    return this.context.scene
  }

  /** The environment texture the state asks for, generated on first use; null when none is drawn. */
  private wanted(): THREE.Texture | null {
    const s = this.state
    return s.enabled && (s.ibl || s.skybox) ? this.maps.texture(s.file) : null
  }

  apply(state: EnvironmentSettings): void {
    this.state = { ...state }
    const texture = this.wanted()
    const scene = this.scene
    scene.environment = texture && state.ibl ? texture : null
    this.background(texture && state.skybox ? texture : null)
    this.dimLights(scene.environment ? LIGHTS_UNDER_IBL : 1)
    scene.environmentIntensity = state.brightness
    scene.backgroundIntensity = state.brightness
    const turn = THREE.MathUtils.degToRad(state.orientation)
    scene.environmentRotation.set(0, turn, 0)
    scene.backgroundRotation.set(0, turn, 0)
    if (this.context.model()) this.modes.apply(this.context.meshesOf(null), state.renderMode)
    this.context.invalidate()
  }

  private dimLights(share: number): void {
    this.scene.traverse((object) => {
      if (!(object instanceof THREE.Light)) return
      if (!this.lights.has(object)) this.lights.set(object, object.intensity)
      object.intensity = (this.lights.get(object) ?? object.intensity) * share
    })
  }

  modelLoaded(): void {
    this.modes.apply(this.context.meshesOf(null), this.state.renderMode)
  }

  /**
   * The skybox wins over the theme while it is on: the theme's colour (set at any time by
   * engine.setBackground, e.g. on a theme switch) is kept aside and comes back when it goes off.
   */
  private background(sky: THREE.Texture | null): boolean {
    const now = this.scene.background
    if (now instanceof THREE.Color) this.theme = now
    if (sky) {
      if (now === sky) return false
      this.scene.background = sky
      return true
    }
    if (!(now instanceof THREE.Texture)) return false
    this.scene.background = this.theme
    return true
  }

  beforeRender(): boolean {
    const s = this.state
    return s.enabled && s.skybox ? this.background(this.wanted()) : false
  }

  snapshot(): EnvironmentSettings {
    const scene = this.scene
    const s = this.state
    const drawn = this.maps.nameOf(scene.environment) ?? this.maps.nameOf(scene.background)
    const degrees = THREE.MathUtils.radToDeg(scene.environmentRotation.y)
    return {
      enabled: s.enabled,
      // Off, nothing is drawn: the choices are kept for when it comes back on.
      file: s.enabled ? (drawn ?? s.file) : s.file,
      ibl: s.enabled ? scene.environment !== null : s.ibl,
      skybox: s.enabled ? scene.background instanceof THREE.Texture : s.skybox,
      brightness: scene.environmentIntensity,
      orientation: orientation(Math.round(degrees * 1e6) / 1e6),
      renderMode: this.modes.read(this.context.meshesOf(null)) ?? s.renderMode,
    }
  }

  private diagnostics(): EnvironmentDiagnostics {
    const { lines, skipped } = this.modes.counts()
    return { pmremMs: { ...this.maps.timings }, edgeLines: lines, meshesWithoutEdges: skipped }
  }

  dispose(): void {
    this.modes.dispose()
    this.maps.dispose()
  }
}

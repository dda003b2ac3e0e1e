// The built-in environments, generated in the browser (nothing is downloaded: the console's CSP
// allows no other origin, and no image ships with it). Each is a small three.js scene turned into a
// prefiltered environment map by PMREMGenerator, once per engine, when first asked for.
import * as THREE from 'three'
import { RoomEnvironment } from 'three/examples/jsm/environments/RoomEnvironment.js'
import type { EnvironmentName } from '../state/environment.ts'

/** The blur of the first mip level (three's default is 0.04: a studio room stays recognisable). */
const SIGMA = 0.04

/** A soft grey gradient: white above, the horizon light grey, a darker floor; no features. */
function neutralScene(): { scene: THREE.Scene; dispose: () => void } {
  const geometry = new THREE.SphereGeometry(10, 32, 16)
  const position = geometry.getAttribute('position')
  const colours: number[] = []
  const top = new THREE.Color(0xffffff)
  const horizon = new THREE.Color(0xc9ced6)
  const floor = new THREE.Color(0x5d636d)
  for (let i = 0; i < position.count; i++) {
    const up = position.getY(i) / 10
    const c = up >= 0 ? horizon.clone().lerp(top, up) : horizon.clone().lerp(floor, -up)
    colours.push(c.r, c.g, c.b)
  }
  geometry.setAttribute('color', new THREE.Float32BufferAttribute(colours, 3))
  const material = new THREE.MeshBasicMaterial({ vertexColors: true, side: THREE.BackSide })
  const scene = new THREE.Scene()
  scene.add(new THREE.Mesh(geometry, material))
  return {
    scene,
    dispose: () => {
      geometry.dispose()
      material.dispose()
    },
  }
}

function sceneOf(name: EnvironmentName): { scene: THREE.Scene; dispose: () => void } {
  if (name === 'neutral') return neutralScene()
  const room = new RoomEnvironment()
  return { scene: room, dispose: () => room.dispose() }
}

export class EnvironmentMaps {
  private readonly made = new Map<EnvironmentName, THREE.WebGLRenderTarget>()
  private readonly names = new Map<THREE.Texture, EnvironmentName>()
  /** Milliseconds each generation took (PMREM passes and a finish of the GL queue). */
  readonly timings: Partial<Record<EnvironmentName, number>> = {}

  constructor(private readonly renderer: THREE.WebGLRenderer) {}

  texture(name: EnvironmentName): THREE.Texture {
    const known = this.made.get(name)
    if (known) return known.texture
    const start = performance.now()
    const generator = new THREE.PMREMGenerator(this.renderer)
    const { scene, dispose } = sceneOf(name)
    const target = generator.fromScene(scene, SIGMA)
    dispose()
    generator.dispose()
    // The passes are queued on the GPU: finish them so that the time measured is the real cost.
    this.renderer.getContext().finish()
    this.timings[name] = performance.now() - start
    this.made.set(name, target)
    this.names.set(target.texture, name)
    return target.texture
  }

  /** Which built-in environment a texture is (the snapshot reads the scene with it). */
  nameOf(texture: unknown): EnvironmentName | null {
    return texture instanceof THREE.Texture ? (this.names.get(texture) ?? null) : null
  }

  dispose(): void {
    for (const target of this.made.values()) target.dispose()
    this.made.clear()
    this.names.clear()
  }
}

// The section tool's browser test (test/viewer-section.test.ts): its model, the section state read
// back from the viewer, and canvas pixels read once the viewer has drawn.
import { Document } from '@gltf-transform/core'
import type { Page } from 'playwright-core'
import { box, write } from './viewer-models.ts'

/** A red near wall (z = +1), a blue far wall (z = −1), both closed boxes 0.2 thick, on a grey floor. */
export function cutGlb(): Promise<Uint8Array> {
  const document = new Document()
  const room = document.createNode('Room')
  document.createScene('Scene').addChild(room)
  const wall = (name: string, z: number, color: [number, number, number, number]) =>
    document
      .createNode(name)
      .setMesh(box(document, name, [4, 2, 0.2], color))
      .setTranslation([0, 0, z])
  room.addChild(wall('Near wall', 1, [0.8, 0.03, 0.03, 1]))
  room.addChild(wall('Far wall', -1, [0.03, 0.1, 0.8, 1]))
  room.addChild(
    document
      .createNode('Floor')
      .setMesh(box(document, 'floor', [5, 0.2, 3], [0.5, 0.5, 0.5, 1]))
      .setTranslation([0, -1.1, 0]),
  )
  return write(document)
}

interface Plane {
  id: string
  normal: number[]
  constant: number
  enabled: boolean
  capColor: string
}
export interface Section {
  enabled: boolean
  planes: Plane[]
  box: { min: number[]; max: number[]; enabled: boolean; capColor: string } | null
}

export async function section(p: Page): Promise<Section> {
  const snap = await p
    .locator('.viewport canvas')
    .evaluate((c) => (c as unknown as { tesseraSnapshot(): Record<string, unknown> }).tesseraSnapshot())
  return snap.section as Section
}

/** The RGB of the canvas pixel at a fraction of its width and height, once two more frames have run. */
export async function pixel(p: Page, fx = 0.5, fy = 0.5): Promise<number[]> {
  return p.evaluate(
    async ([x, y]) => {
      // The engine draws in its own requestAnimationFrame callback, which runs before these.
      for (let i = 0; i < 2; i++) await new Promise((r) => requestAnimationFrame(r))
      const source = document.querySelector('.viewport canvas') as HTMLCanvasElement
      const copy = document.createElement('canvas')
      copy.width = source.width
      copy.height = source.height
      const ctx = copy.getContext('2d') as CanvasRenderingContext2D
      ctx.drawImage(source, 0, 0)
      const d = ctx.getImageData(Math.floor(source.width * x), Math.floor(source.height * y), 1, 1).data
      return [d[0] ?? 0, d[1] ?? 0, d[2] ?? 0]
    },
    [fx, fy] as const,
  )
}

// The 3D view's pixels, for the tests that look at what is drawn: read from the canvas, counted by
// colour, compared.
import type { Page } from 'playwright-core'

/**
 * Every canvas pixel, RGBA, as it is now, and the canvas's width (they cross as one base64 string:
 * arrays of millions of numbers cross slowly).
 */
export async function canvasImage(p: Page): Promise<{ data: Uint8Array; width: number }> {
  const { base64, width } = await p.evaluate(() => {
    const source = document.querySelector('.viewport canvas') as HTMLCanvasElement
    const copy = document.createElement('canvas')
    copy.width = source.width
    copy.height = source.height
    const ctx = copy.getContext('2d') as CanvasRenderingContext2D
    ctx.drawImage(source, 0, 0)
    const data = ctx.getImageData(0, 0, copy.width, copy.height).data
    let binary = ''
    for (let i = 0; i < data.length; i += 0x8000)
      binary += String.fromCharCode(...data.subarray(i, i + 0x8000))
    return { base64: btoa(binary), width: copy.width }
  })
  return { data: new Uint8Array(Buffer.from(base64, 'base64')), width }
}

/** Every canvas pixel, RGBA, once the render loop has drawn what the last change asked for. */
export async function pixels(p: Page): Promise<Uint8Array> {
  await p.waitForTimeout(100)
  await p.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
  return (await canvasImage(p)).data
}

/** The beams' steel as drawn (about 120, 60, 0) and the slabs' concrete (about 20, 40, 140). */
export const isOrange = (d: Uint8Array, i: number) =>
  (d[i] ?? 0) > 90 && (d[i] ?? 0) - (d[i + 2] ?? 0) > 70 && (d[i] ?? 0) > 1.4 * (d[i + 1] ?? 0)
/** The selection outline's accent (#1f6feb), brighter and greener than the concrete. */
export const isOutline = (d: Uint8Array, i: number) =>
  (d[i + 2] ?? 0) > 200 && (d[i + 1] ?? 0) > 90 && (d[i] ?? 0) < 80
export const isBlue = (d: Uint8Array, i: number) =>
  (d[i + 2] ?? 0) > 90 && (d[i + 2] ?? 0) - (d[i] ?? 0) > 60 && (d[i + 1] ?? 0) < 90

export function count(d: Uint8Array, match: (d: Uint8Array, i: number) => boolean): number {
  let n = 0
  for (let i = 0; i < d.length; i += 4) if (match(d, i)) n++
  return n
}

/** Mean RGB difference between two images over the pixels where `where` holds in the first reference. */
export function meanDiff(a: Uint8Array, b: Uint8Array, where: (i: number) => boolean = () => true): number {
  let sum = 0
  let n = 0
  for (let i = 0; i < a.length; i += 4) {
    if (!where(i)) continue
    for (let c = 0; c < 3; c++) sum += Math.abs((a[i + c] ?? 0) - (b[i + c] ?? 0))
    n++
  }
  return n === 0 ? 0 : sum / n / 3
}

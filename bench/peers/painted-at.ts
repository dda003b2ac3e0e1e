// In the page, for the browser benches (console-open.ts, viewer.ts): when the viewer first shows the
// model. Type-checked without the DOM's types (the server's program reads console-open.ts): the few
// DOM members it uses are declared here.

interface PageCanvas {
  width: number
  height: number
  getContext(kind: '2d'): {
    drawImage(source: PageCanvas, x: number, y: number): void
    getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray }
  }
}
interface PageDocument {
  querySelector(selector: string): PageCanvas | null
  createElement(tag: 'canvas'): PageCanvas
}

/**
 * performance.now() once over 2 % of the viewer's canvas differs from the background (the console
 * tests' paintedShare), else false. A function, not a string: the console's CSP forbids evaluating
 * strings. A model of many parts shows its preview first, and that counts: it is the model, drawn.
 */
export function paintedAt(): number | false {
  const doc = (globalThis as unknown as { document: PageDocument }).document
  const source = doc.querySelector('.viewport:is([data-phase="preview"], [data-phase="ready"]) canvas')
  if (!source) return false
  const copy = doc.createElement('canvas')
  copy.width = source.width
  copy.height = source.height
  const ctx = copy.getContext('2d')
  ctx.drawImage(source, 0, 0)
  const data = ctx.getImageData(0, 0, copy.width, copy.height).data
  let painted = 0
  let total = 0
  for (let i = 0; i < data.length; i += 4 * 7) {
    total++
    const d =
      Math.abs((data[i] ?? 0) - 0xee) +
      Math.abs((data[i + 1] ?? 0) - 0xf1) +
      Math.abs((data[i + 2] ?? 0) - 0xf5)
    if (d > 24) painted++
  }
  return painted / total > 0.02 ? performance.now() : false
}

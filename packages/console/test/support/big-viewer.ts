// Measurements of the viewer on big models, shared by test/viewer-bigmodel.test.ts and the browser
// benchmark (bench/viewer.ts): a synthetic scene tree served in place of a model's own, and
// timings taken inside the page (performance.now()) so that the test driver's round trips are not
// counted: tree expand and scroll until the rows are drawn and a frame has passed, picks around the
// engine's own pick (canvas.tesseraPick, src/viewer/probes.ts).
import type { Page } from 'playwright-core'

interface TreeNode {
  id: string
  name: string
  children: TreeNode[]
}

/** A site of `groups` storeys holding `perGroup` elements each (1 + groups × (1 + perGroup) nodes). */
export function syntheticTree(groups: number, perGroup: number): TreeNode[] {
  const storeys = Array.from({ length: groups }, (_, g) => ({
    id: `g${g}`,
    name: `Storey ${g + 1}`,
    children: Array.from({ length: perGroup }, (_, e) => ({
      id: `g${g}e${e}`,
      name: `Element ${g + 1}.${e + 1}`,
      children: [],
    })),
  }))
  return [{ id: 'site', name: 'Site', children: storeys }]
}

export function countNodes(tree: TreeNode[]): number {
  return tree.reduce((n, node) => n + 1 + countNodes(node.children), 0)
}

/** Answers GET /file/:id/scene-tree with `tree`, after `delayMs` (to watch the model draw first). */
export async function serveTree(page: Page, tree: TreeNode[] | null, delayMs = 0): Promise<void> {
  await page.route(
    (url) => /\/file\/[^/]+\/scene-tree$/.test(url.pathname),
    async (route) => {
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs))
      if (tree === null) await route.continue()
      else
        await route.fulfill({
          status: 200,
          contentType: 'application/json',
          body: JSON.stringify({ success: true, tree }),
        })
    },
  )
}

/**
 * Times in ms: until the rows are in the DOM (the console's own work: state, flattening, Preact's
 * commit), and until the next animation frame after that (what is seen: adds the browser's style,
 * layout and compositing, software-rendered here, and the machine's load).
 */
export interface Timed {
  dom: number[]
  frame: number[]
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}

/**
 * Opens (or closes) each storey of the synthetic tree with its twisty, the last first, timed from
 * the click until the storey's row says so, its rows are drawn and a frame has passed. Opening, the
 * storeys before the one clicked are closed (it is row g + 1); closing, they are open (row
 * 1 + g × (perGroup + 1)). Answers the times in ms.
 */
export async function timeToggles(
  page: Page,
  groups: number,
  perGroup: number,
  open: boolean,
): Promise<Timed> {
  return page.evaluate(
    async ([count, stride, opening]) => {
      const box = document.querySelector('[role="tree"]') as HTMLElement
      const frame = () => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)))
      const rowOf = (id: string) => box.querySelector<HTMLElement>(`[data-id="${id}"]`)
      const dom: number[] = []
      const frames: number[] = []
      for (let g = count - 1; g >= 0; g--) {
        box.scrollTop = (1 + g * stride) * 30
        for (let i = 0; i < 50 && !rowOf(`g${g}`); i++) await frame()
        const row = rowOf(`g${g}`)
        if (!row) throw new Error(`row g${g} is not drawn`)
        const start = performance.now()
        row.querySelector<HTMLElement>('.twisty')?.click()
        const want = String(opening)
        while (rowOf(`g${g}`)?.getAttribute('aria-expanded') !== want)
          await new Promise((r) => setTimeout(r, 0))
        dom.push(performance.now() - start)
        await frame()
        frames.push(performance.now() - start)
      }
      return { dom, frame: frames }
    },
    [groups, open ? 1 : perGroup + 1, open] as const,
  )
}

/**
 * With the whole tree open: jumps to `jumps` places of the list (deterministic, spread over it),
 * timed until the row at the new place is drawn and a frame has passed.
 */
export async function timeScroll(page: Page, jumps: number): Promise<Timed> {
  return page.evaluate(async (n) => {
    const box = document.querySelector('[role="tree"]') as HTMLElement
    const frame = () => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)))
    const dom: number[] = []
    const frames: number[] = []
    const rows = Math.floor(box.scrollHeight / 30)
    for (let i = 0; i < n; i++) {
      const index = Math.floor(((i * 7919) % n) * (rows / n))
      const start = performance.now()
      box.scrollTop = index * 30
      box.dispatchEvent(new Event('scroll'))
      // Compared as numbers: past 1e6 the style reads back as "2.925e+06px".
      const top = Math.floor(box.scrollTop / 30) * 30
      const drawn = () =>
        [...box.querySelectorAll<HTMLElement>('[role="treeitem"]')].some(
          (r) => Number.parseFloat(r.style.top) === top,
        )
      for (let k = 0; k < 2000 && !drawn(); k++) await new Promise((r) => setTimeout(r, 0))
      if (!drawn()) throw new Error(`the row at ${top} was never drawn`)
      dom.push(performance.now() - start)
      await frame()
      frames.push(performance.now() - start)
    }
    return { dom, frame: frames }
  }, jumps)
}

/** `count` picks spread over the canvas, timed in the page; `accelerated` false: the plain raycast. */
export async function timePicks(
  page: Page,
  count: number,
  accelerated: boolean,
): Promise<{ ms: number[]; hits: number }> {
  return page.evaluate(
    ([n, bvh]) => {
      type Pick = (x: number, y: number, accelerated: boolean) => { nodeId: string | null; ms: number }
      const canvas = document.querySelector('.viewport canvas') as HTMLCanvasElement & { tesseraPick: Pick }
      const rect = canvas.getBoundingClientRect()
      const ms: number[] = []
      let hits = 0
      for (let i = 0; i < n; i++) {
        // A 10 × n/10 grid over the middle 80 % of the canvas.
        const x = rect.left + rect.width * (0.1 + 0.8 * ((i % 10) / 9))
        const y =
          rect.top + rect.height * (0.1 + 0.8 * (Math.floor(i / 10) / Math.max(1, Math.ceil(n / 10) - 1)))
        const pick = canvas.tesseraPick(x, y, bvh)
        ms.push(pick.ms)
        if (pick.nodeId !== null) hits++
      }
      return { ms, hits }
    },
    [count, accelerated] as const,
  )
}

/** PickIndex.progress(): trees built (of them in the web worker), still queued, the tree over the parts. */
interface TreesBuilt {
  built: number
  pending: number
  parts: boolean
  inWorker: number
}

/** Waits until every geometry has its bounds tree; answers how many were built. */
export function bvhBuilt(page: Page): Promise<TreesBuilt> {
  return page.evaluate(() => {
    const canvas = document.querySelector('.viewport canvas') as HTMLCanvasElement & {
      tesseraPickIndex: () => Promise<TreesBuilt>
    }
    return canvas.tesseraPickIndex()
  })
}

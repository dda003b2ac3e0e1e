// Keyboard focus, checked the way a keyboard user meets it: Tab from the top of the page through
// every stop, and for each focused element whether its focus ring can be seen. A ring must be a
// solid-ish outline of at least 2 px, contrast 3:1 with the colour it is drawn on (WCAG 2.2 1.4.11),
// and not be cut off by a scrolling or clipping ancestor.
import type { Page } from 'playwright-core'

export interface FocusProblem {
  element: string
  problem: string
}

/** Tabs through up to `limit` stops; returns the stops whose focus ring is not visible enough. */
export async function focusProblems(page: Page, limit = 80): Promise<FocusProblem[]> {
  await page.evaluate(() => {
    ;(document.activeElement as HTMLElement | null)?.blur()
    window.getSelection()?.removeAllRanges()
  })
  const problems: FocusProblem[] = []
  try {
    for (let i = 0; i < limit; i++) {
      await page.keyboard.press('Tab')
      const stop = await page.evaluate(inspectFocus)
      if (!stop) break // back at the top: every stop was visited
      if (stop.problem) problems.push({ element: stop.element, problem: stop.problem })
    }
  } finally {
    await page.evaluate(() => {
      for (const el of document.querySelectorAll('[data-focus-seen]')) el.removeAttribute('data-focus-seen')
    })
  }
  return problems
}

/** Runs in the page: the focused element's ring, judged. */
function inspectFocus(): { element: string; problem: string } | null {
  const el = document.activeElement as HTMLElement | null
  if (!el || el === document.body || el.hasAttribute('data-focus-seen')) return null
  el.setAttribute('data-focus-seen', '')
  const label = (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)
  const name = `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(' ').join('.')}` : ''} "${label}"`
  const css = getComputedStyle(el)
  const width = Number.parseFloat(css.outlineWidth)
  const offset = Number.parseFloat(css.outlineOffset)
  if (css.outlineStyle === 'none' || width < 2)
    return { element: name, problem: `no outline (${css.outlineStyle} ${css.outlineWidth})` }
  const rgb = (value: string): number[] => (value.match(/[\d.]+/g) ?? []).map(Number)
  const luminance = ([r = 0, g = 0, b = 0]: number[]) =>
    [r, g, b]
      .map((c) => c / 255)
      .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
      .reduce((sum, c, i) => sum + c * ([0.2126, 0.7152, 0.0722][i] ?? 0), 0)
  // What the ring is drawn on: outside the element, its ancestors' background; inset, its own.
  let under: Element | null = offset < 0 ? el : el.parentElement
  let background = 'rgb(255, 255, 255)'
  for (; under; under = under.parentElement) {
    const bg = getComputedStyle(under).backgroundColor
    const alpha = rgb(bg)[3]
    if (bg !== 'transparent' && alpha !== 0) {
      background = bg
      break
    }
  }
  const [a, b] = [luminance(rgb(css.outlineColor)), luminance(rgb(background))]
  const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)
  if (ratio < 3)
    return { element: name, problem: `ring ${css.outlineColor} on ${background}: ${ratio.toFixed(2)}:1` }
  // Cut off: an ancestor that clips (overflow other than visible) must hold the whole ring.
  const extent = Math.max(0, width + offset)
  const box = el.getBoundingClientRect()
  for (let p = el.parentElement; p; p = p.parentElement) {
    const style = getComputedStyle(p)
    if (style.overflowX === 'visible' && style.overflowY === 'visible') continue
    const clip = p.getBoundingClientRect()
    const inside =
      box.left - extent >= clip.left + p.clientLeft - 0.5 &&
      box.top - extent >= clip.top + p.clientTop - 0.5 &&
      box.left + box.width + extent <= clip.left + p.clientLeft + p.clientWidth + 0.5 &&
      box.top + box.height + extent <= clip.top + p.clientTop + p.clientHeight + 0.5
    if (!inside)
      return { element: name, problem: `ring cut off by ${p.tagName.toLowerCase()}.${p.className}` }
  }
  return { element: name, problem: '' }
}

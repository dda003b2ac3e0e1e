// Hand-written SVG charts for the benchmarks' history (bench/chart.ts): axes, labels, a line with
// points per series, targets as dashed lines. Output depends only on the input (no clock, no
// randomness, fixed number formatting), so the committed charts can be checked against the data.
// The chart draws its own light background: it reads the same in the page's light and dark themes.

export interface Point {
  x: number
  y: number
  /** Shown as the point's tooltip. */
  label: string
}

export interface Series {
  name: string
  color: string
  /** A dashed line for the series (for a second family beside solid ones). */
  dashed?: boolean
  marker: 'circle' | 'square' | 'diamond' | 'triangle'
  points: Point[]
}

interface Target {
  y: number
  label: string
  color: string
}

export interface Chart {
  title: string
  subtitle: string
  yLabel: string
  series: Series[]
  targets: Target[]
  /** Time axis (ms since the epoch) or categories (x = index into them). */
  x: { kind: 'time' } | { kind: 'category'; labels: string[] }
}

const W = 860
const H = 460
const M = { left: 72, right: 56, top: 116, bottom: 60 }
const INK = '#1f2328'
const MUTED = '#57606a'
const GRID = '#d8dee4'
const PAPER = '#ffffff'

export const PALETTE = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9'] as const

const esc = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
const fix = (n: number) => Number(n.toFixed(1)).toString()

/** Tick values: 1, 2 or 5 times a power of ten, about `count` of them over [lo, hi]. */
function niceTicks(lo: number, hi: number, count = 5): number[] {
  const span = hi - lo || Math.abs(hi) || 1
  const raw = span / count
  const power = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power
  const ticks: number[] = []
  for (let v = Math.floor(lo / step) * step; v <= hi + step * 1e-9; v += step)
    ticks.push(Number(v.toPrecision(12)))
  return ticks
}

const DAY = 86_400_000
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** Time ticks at whole UTC days or hours, about six of them, with their labels. */
function timeTicks(lo: number, hi: number): Array<{ at: number; label: string }> {
  const steps = [3, 6, 12, 24, 48, 168, 336, 720].map((h) => h * 3_600_000)
  const step = steps.find((s) => (hi - lo) / s <= 7) ?? 30 * DAY
  const ticks: Array<{ at: number; label: string }> = []
  for (let t = Math.ceil(lo / step) * step; t <= hi; t += step) {
    const d = new Date(t)
    const day = `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`
    const hour = `${String(d.getUTCHours()).padStart(2, '0')}:00`
    // The day on midnight ticks and on the first one, so every hour can be placed.
    const label = d.getUTCHours() === 0 ? day : ticks.length === 0 ? `${day} ${hour}` : hour
    ticks.push({ at: t, label })
  }
  return ticks
}

function format(v: number): string {
  if (Math.abs(v) >= 10_000) return `${fix(v / 1000)} k`
  if (Math.abs(v) >= 1000) return String(Math.round(v)).replace(/\B(?=(\d{3})+$)/, ',')
  return Number(v.toPrecision(3)).toString()
}

interface Frame {
  sx: (x: number) => number
  sy: (y: number) => number
  yTicks: number[]
  xTicks: Array<{ at: number; label: string }>
}

function frameOf(chart: Chart): Frame {
  const points = chart.series.flatMap((s) => s.points)
  const ys = [...points.map((p) => p.y), ...chart.targets.map((t) => t.y)]
  const xs = points.map((p) => p.x)
  // From zero: every figure here is a rate, a time or a ratio, and a cut axis exaggerates change.
  const yLo = Math.min(0, ...ys)
  const yHi = Math.max(...ys) * 1.08
  const yTicks = niceTicks(yLo, yHi)
  const y0 = Math.min(yLo, yTicks[0] ?? yLo)
  const y1 = Math.max(yHi, yTicks.at(-1) ?? yHi)
  const sy = (y: number) => M.top + (H - M.top - M.bottom) * (1 - (y - y0) / (y1 - y0 || 1))
  if (chart.x.kind === 'category') {
    const n = chart.x.labels.length
    const sx = (x: number) => M.left + ((W - M.left - M.right) * (x + 0.5)) / n
    const xTicks = chart.x.labels.map((label, at) => ({ at, label }))
    return { sx, sy, yTicks, xTicks }
  }
  const pad = Math.max((Math.max(...xs) - Math.min(...xs)) * 0.04, 3_600_000)
  const x0 = Math.min(...xs) - pad
  const x1 = Math.max(...xs) + pad
  const sx = (x: number) => M.left + ((W - M.left - M.right) * (x - x0)) / (x1 - x0)
  return { sx, sy, yTicks, xTicks: timeTicks(x0, x1) }
}

function axes(chart: Chart, f: Frame): string[] {
  const out: string[] = []
  const right = W - M.right
  const bottom = H - M.bottom
  for (const t of f.yTicks) {
    const y = fix(f.sy(t))
    out.push(`<line x1="${M.left}" y1="${y}" x2="${right}" y2="${y}" stroke="${GRID}"/>`)
    out.push(
      `<text x="${M.left - 8}" y="${y}" dy="4" text-anchor="end" fill="${MUTED}">${esc(format(t))}</text>`,
    )
  }
  for (const t of f.xTicks) {
    const x = fix(f.sx(t.at))
    out.push(`<line x1="${x}" y1="${bottom}" x2="${x}" y2="${bottom + 5}" stroke="${MUTED}"/>`)
    out.push(`<text x="${x}" y="${bottom + 20}" text-anchor="middle" fill="${MUTED}">${esc(t.label)}</text>`)
  }
  out.push(`<line x1="${M.left}" y1="${bottom}" x2="${right}" y2="${bottom}" stroke="${MUTED}"/>`)
  out.push(`<line x1="${M.left}" y1="${M.top}" x2="${M.left}" y2="${bottom}" stroke="${MUTED}"/>`)
  const midY = fix((M.top + bottom) / 2)
  out.push(
    `<text transform="translate(18 ${midY}) rotate(-90)" text-anchor="middle" fill="${INK}">${esc(chart.yLabel)}</text>`,
  )
  if (chart.x.kind === 'time')
    out.push(`<text x="${right}" y="${H - 14}" text-anchor="end" fill="${MUTED}">time (UTC)</text>`)
  return out
}

function marker(kind: Series['marker'], x: number, y: number, color: string, label: string): string {
  const title = `<title>${esc(label)}</title>`
  const paint = `fill="${color}" stroke="${PAPER}" stroke-width="1.5"`
  const [cx, cy] = [fix(x), fix(y)]
  if (kind === 'circle') return `<circle cx="${cx}" cy="${cy}" r="5" ${paint}>${title}</circle>`
  if (kind === 'square')
    return `<rect x="${fix(x - 4.5)}" y="${fix(y - 4.5)}" width="9" height="9" ${paint}>${title}</rect>`
  const pts =
    kind === 'diamond'
      ? [
          [x, y - 6],
          [x + 6, y],
          [x, y + 6],
          [x - 6, y],
        ]
      : [
          [x, y - 6],
          [x + 6, y + 5],
          [x - 6, y + 5],
        ]
  return `<polygon points="${pts.map(([a = 0, b = 0]) => `${fix(a)},${fix(b)}`).join(' ')}" ${paint}>${title}</polygon>`
}

function plot(chart: Chart, f: Frame): string[] {
  const out: string[] = []
  for (const t of chart.targets) {
    const y = fix(f.sy(t.y))
    out.push(
      `<line x1="${M.left}" y1="${y}" x2="${W - M.right}" y2="${y}" stroke="${t.color}" stroke-width="1.5" stroke-dasharray="7 5"/>`,
    )
    // The value in the margin, clear of the points; the legend names the target.
    out.push(`<text x="${W - M.right + 6}" y="${y}" dy="4" fill="${t.color}">${esc(format(t.y))}</text>`)
  }
  const categories = chart.x.kind === 'category'
  for (const [i, s] of chart.series.entries()) {
    const pts = [...s.points].sort((a, b) => a.x - b.x)
    // Categories: points only (no trend between unrelated models), side by side per series.
    const shift = categories ? (i - (chart.series.length - 1) / 2) * 12 : 0
    const path = pts.map((p) => `${fix(f.sx(p.x))},${fix(f.sy(p.y))}`).join(' ')
    const dash = s.dashed ? ' stroke-dasharray="2 4"' : ''
    if (pts.length > 1 && !categories)
      out.push(`<polyline points="${path}" fill="none" stroke="${s.color}" stroke-width="2"${dash}/>`)
    for (const p of pts) out.push(marker(s.marker, f.sx(p.x) + shift, f.sy(p.y), s.color, p.label))
  }
  return out
}

function legend(chart: Chart): string[] {
  const out: string[] = []
  let x = M.left
  let y = 68
  for (const s of chart.series) {
    const width = 34 + s.name.length * 7.2
    if (x + width > W - M.right) {
      x = M.left
      y += 18
    }
    const dash = s.dashed ? ' stroke-dasharray="2 4"' : ''
    if (chart.x.kind === 'time')
      out.push(
        `<line x1="${x}" y1="${y - 4}" x2="${x + 22}" y2="${y - 4}" stroke="${s.color}" stroke-width="2"${dash}/>`,
      )
    out.push(marker(s.marker, x + 11, y - 4, s.color, s.name))
    out.push(`<text x="${x + 28}" y="${y}" fill="${INK}">${esc(s.name)}</text>`)
    x += width + 14
  }
  for (const t of chart.targets) {
    const width = 34 + t.label.length * 7.2
    if (x + width > W - M.right) {
      x = M.left
      y += 18
    }
    out.push(
      `<line x1="${x}" y1="${y - 4}" x2="${x + 22}" y2="${y - 4}" stroke="${t.color}" stroke-width="1.5" stroke-dasharray="7 5"/>`,
    )
    out.push(`<text x="${x + 28}" y="${y}" fill="${INK}">${esc(t.label)}</text>`)
    x += width + 14
  }
  return out
}

/** The chart as a standalone SVG document. */
export function renderSvg(chart: Chart): string {
  const f = frameOf(chart)
  const body = [
    `<rect width="${W}" height="${H}" rx="8" fill="${PAPER}" stroke="${GRID}"/>`,
    `<text x="${M.left}" y="28" font-size="17" font-weight="600" fill="${INK}">${esc(chart.title)}</text>`,
    `<text x="${M.left}" y="48" fill="${MUTED}">${esc(chart.subtitle)}</text>`,
    ...axes(chart, f),
    ...plot(chart, f),
    ...legend(chart),
  ]
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(chart.title)}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="13">`,
    `<title>${esc(chart.title)}</title>`,
    ...body.map((line) => `  ${line}`),
    '</svg>',
    '',
  ].join('\n')
}

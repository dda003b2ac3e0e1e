// axe-core in a Playwright page: inject it, run it on the page (or a part of it), and sum up what
// it found by impact. Shared by every browser test that checks a screen. The source is evaluated
// through CDP (page.evaluate), which the console's CSP does not govern, so no test needs bypassCSP.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'

const require = createRequire(import.meta.url)
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')

export type Impact = 'minor' | 'moderate' | 'serious' | 'critical'

export interface AxeFinding {
  id: string
  impact: Impact
  help: string
  /** CSS selectors of the first offending elements (at most 5). */
  targets: string[]
  /** axe's explanation for the first offending element (the contrast ratio it measured, say). */
  summary: string
  nodes: number
}

interface RawResult {
  id: string
  impact?: Impact | null
  help: string
  nodes: { target: unknown[]; failureSummary?: string }[]
}

/**
 * Runs axe-core on the page as it is now (WCAG 2.0–2.2 A/AA with 24 px targets, and axe's best
 * practices) and returns its violations, in `include` (a selector; the whole page by default) minus
 * `exclude` (selectors of parts that are not the console's own: none so far).
 */
export async function axe(page: Page, exclude: string[] = [], include = 'html'): Promise<AxeFinding[]> {
  const loaded = await page.evaluate(() => 'axe' in window)
  if (!loaded) await page.evaluate(AXE_SOURCE)
  const raw = await page.evaluate(
    async ({ excluded, included }) => {
      const engine = (window as unknown as { axe: { run: (c: unknown, o: unknown) => Promise<unknown> } }).axe
      const context = { include: [[included]], exclude: excluded.map((s) => [s]) }
      // target-size (WCAG 2.2 2.5.8, 24 × 24 px) is off in axe by default: this project requires it.
      const options = { resultTypes: ['violations'], rules: { 'target-size': { enabled: true } } }
      const results = (await engine.run(context, options)) as {
        violations: unknown[]
      }
      return JSON.stringify(results.violations)
    },
    { excluded: exclude, included: include },
  )
  return (JSON.parse(raw) as RawResult[]).map((v) => ({
    id: v.id,
    impact: v.impact ?? 'minor',
    help: v.help,
    targets: v.nodes.slice(0, 5).map((n) => n.target.map(String).join(' ')),
    summary: (v.nodes[0]?.failureSummary ?? '').replace(/\s+/g, ' ').trim(),
    nodes: v.nodes.length,
  }))
}

/** The findings that block a merge here: impact serious or critical. */
export function blocking(findings: AxeFinding[]): AxeFinding[] {
  return findings.filter((f) => f.impact === 'serious' || f.impact === 'critical')
}

/** One line per finding, for assertion messages and test diagnostics. */
export function describeFindings(findings: AxeFinding[]): string {
  return findings
    .map((f) => `${f.impact} ${f.id} ×${f.nodes}: ${f.help} — ${f.targets.join(', ')} — ${f.summary}`)
    .join('\n')
}

/** The serious and critical findings on the whole page, one line each (`[]` when there are none). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const findings = blocking(await axe(page))
  return findings.length === 0 ? [] : describeFindings(findings).split('\n')
}

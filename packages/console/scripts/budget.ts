// `npm run budget -w @tessera/console`: the gzip size of the JavaScript a first visit loads (the
// viewer's three.js chunk excluded: it loads when a model is opened), and the time the Files screen
// takes to render 1,000 files in Chromium. Fails past 250 KB gzip or 300 ms.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { launch } from '../test/support/browser.ts'
import { startTessera } from '../test/support/server.ts'

const DIST = path.resolve(import.meta.dirname, '../dist')
const JS_BUDGET = 250 * 1024
const RENDER_BUDGET_MS = 300

function gz(file: string): number {
  return gzipSync(readFileSync(path.join(DIST, file)), { level: 9 }).length
}

function initialAssets(): string[] {
  const html = readFileSync(path.join(DIST, 'index.html'), 'utf8')
  return [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1] ?? '')
}

function fakeFiles(n: number): unknown[] {
  const states = ['ready', 'ready', 'ready', 'converting', 'error', 'queued']
  return Array.from({ length: n }, (_, i) => ({
    _id: i.toString(16).padStart(24, '0'),
    parent: '/',
    name: `part-${String(i).padStart(4, '0')}.step`,
    owner: 'admin@localhost',
    roles: [],
    size: 1000 + i * 997,
    created: new Date(1_700_000_000_000 + i * 1000).toISOString(),
    updated: new Date(1_700_000_000_000 + i * 1000).toISOString(),
    revisionDate: new Date(1_700_000_000_000 + i * 1000).toISOString(),
    state: states[i % states.length],
    progress: 40,
    error: i % 6 === 4 ? 'unsupported format: .step' : null,
    __v: 0,
  }))
}

async function renderTime(): Promise<number[]> {
  const server = await startTessera()
  const browser = await launch()
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    const body = JSON.stringify({ success: true, files: fakeFiles(1000) })
    // The listing answers 1,000 files: what is measured is the console, not the database.
    await page.route(
      (url) => url.pathname === '/file/dir/private/',
      (route) => route.fulfill({ status: 200, contentType: 'application/json', body }),
    )
    await page.goto(server.baseUrl)
    await page.getByLabel('Username').fill('admin')
    await page.getByLabel('Password', { exact: true }).fill(server.adminPassword)
    await page.getByRole('button', { name: 'Sign in' }).click()
    const times: number[] = []
    for (let run = 0; run < 5; run++) {
      await page.locator('section.list[data-count="1000"]').waitFor()
      times.push(
        await page.evaluate(() => {
          const all = performance.getEntriesByName('files:render')
          return all[all.length - 1]?.duration ?? Number.NaN
        }),
      )
      // Away and back: the screen mounts and renders the 1,000 rows again.
      await page.getByRole('link', { name: 'Webhooks' }).click()
      await page.getByRole('heading', { name: 'Webhooks' }).waitFor()
      await page.getByRole('link', { name: 'Files' }).click()
    }
    return times
  } finally {
    await browser.close()
    await server.stop()
  }
}

const initial = initialAssets()
let total = 0
console.log('Initial assets (gzip -9):')
for (const file of initial) {
  const size = gz(file)
  if (file.endsWith('.js')) total += size
  console.log(`  ${file.padEnd(40)} ${(size / 1024).toFixed(1)} KB`)
}
console.log(`Initial JavaScript: ${(total / 1024).toFixed(1)} KB gzip (budget ${JS_BUDGET / 1024} KB)`)
const lazy = readdirSync(path.join(DIST, 'assets')).filter(
  (f) => f.endsWith('.js') && !initial.includes(`assets/${f}`),
)
for (const file of lazy)
  console.log(`  lazy: assets/${file.padEnd(34)} ${(gz(`assets/${file}`) / 1024).toFixed(1)} KB`)
const times = await renderTime()
const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? Number.NaN
console.log(
  `1,000-file list render: ${times.map((t) => t.toFixed(0)).join(', ')} ms; median ${median.toFixed(0)} ms (budget ${RENDER_BUDGET_MS} ms)`,
)
if (total > JS_BUDGET || !(median < RENDER_BUDGET_MS)) {
  console.error('Budget exceeded.')
  process.exit(1)
}

// The benchmarks page stays a dashboard, and its charts never drift from their data
// (docs/benchmarks.md, "Reading this page"): the page has a size limit, every chart it shows is the
// one bench/chart.ts draws from the committed history in bench/results/, and a run's figures are
// appended to that history only when recording is asked for.
import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { CHARTS_DIR, readHistory, renderCharts, timeOf } from '../../../../bench/chart.ts'
import { RESULTS_DIR, record } from '../../../../bench/results.ts'

const root = path.resolve(fileURLToPath(import.meta.url), '../../../../..')
const page = path.join(root, 'docs/benchmarks.md')
const LIMIT = 20 * 1024

describe('docs/benchmarks.md', () => {
  it(`stays under ${LIMIT} bytes: figures go to bench/results/, not into prose`, () => {
    const size = statSync(page).size
    assert.ok(size <= LIMIT, `docs/benchmarks.md is ${size} bytes; the limit is ${LIMIT}`)
  })

  it('shows every chart bench:chart draws, and only those', () => {
    const shown = [...readFileSync(page, 'utf8').matchAll(/!\[[^\]]+\]\(benchmarks\/([^)]+\.svg)\)/g)].map(
      (m) => m[1],
    )
    const drawn = renderCharts(readHistory()).map((c) => c.file)
    assert.deepEqual([...shown].sort(), [...drawn].sort())
    assert.deepEqual(
      readdirSync(CHARTS_DIR)
        .filter((f) => f.endsWith('.svg'))
        .sort(),
      [...drawn].sort(),
      'an SVG in docs/benchmarks/ that no chart draws',
    )
  })
})

describe('bench:chart', () => {
  it('draws the committed charts from the committed history, the same every time', () => {
    const first = renderCharts(readHistory())
    const second = renderCharts(readHistory())
    assert.deepEqual(second, first)
    for (const { file, svg } of first) {
      const committed = readFileSync(path.join(CHARTS_DIR, file), 'utf8')
      assert.equal(svg, committed, `docs/benchmarks/${file} differs from its data: run npm run bench:chart`)
    }
  })

  it('places a run by the start of its span, an ISO time as is, and a bare date with no time', () => {
    assert.deepEqual(timeOf('2026-11-26T11:10/11:23'), {
      ms: Date.parse('2026-11-26T11:10:00Z'),
      timed: true,
    })
    assert.deepEqual(timeOf('2026-11-27T16:17:40.402Z'), {
      ms: Date.parse('2026-11-27T16:17:40.402Z'),
      timed: true,
    })
    assert.deepEqual(timeOf('2026-11-24'), { ms: Date.parse('2026-11-24T12:00:00Z'), timed: false })
    assert.equal(timeOf(null), null)
    assert.equal(timeOf('yesterday'), null)
  })
})

describe('bench/results', () => {
  it('holds well-formed rows: a figure, its unit, and a date or why there is none', () => {
    for (const file of readdirSync(RESULTS_DIR).filter((f) => f.endsWith('.jsonl'))) {
      const lines = readFileSync(path.join(RESULTS_DIR, file), 'utf8').trimEnd().split('\n')
      for (const [i, line] of lines.entries()) {
        const where = `${file}:${i + 1}`
        const row = JSON.parse(line) as Record<string, unknown>
        assert.equal(`${String(row.bench)}.jsonl`, file, where)
        assert.equal(typeof row.metric, 'string', where)
        assert.ok(typeof row.value === 'number' && Number.isFinite(row.value), `${where}: value`)
        assert.equal(typeof row.unit, 'string', where)
        if (row.date === null) assert.equal(typeof row.dateNote, 'string', `${where}: a null date says why`)
        else assert.ok(timeOf(String(row.date)), `${where}: date ${String(row.date)}`)
      }
    }
  })

  it('records a run only when TESSERA_BENCH_RECORD=1, with the run’s context', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tessera-bench-results-'))
    const saved = process.env.TESSERA_BENCH_RECORD
    try {
      delete process.env.TESSERA_BENCH_RECORD
      assert.equal(record('probe', [{ metric: 'm', value: 1, unit: 'ms' }], dir), null)
      assert.deepEqual(readdirSync(dir), [])

      process.env.TESSERA_BENCH_RECORD = '1'
      record('probe', [{ metric: 'm', value: 1, unit: 'ms', dialect: 'sqlite' }], dir)
      record('probe', [{ metric: 'm', value: 2, unit: 'ms', load: 'its own' }], dir)
      const rows = readFileSync(path.join(dir, 'probe.jsonl'), 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
      assert.deepEqual(
        rows.map((r) => [r.bench, r.metric, r.value, r.unit]),
        [
          ['probe', 'm', 1, 'ms'],
          ['probe', 'm', 2, 'ms'],
        ],
      )
      const [first, second] = rows
      assert.equal(first?.dialect, 'sqlite')
      assert.equal(first?.node, process.versions.node)
      assert.ok(timeOf(String(first?.date))?.timed)
      for (const key of ['host', 'load', 'command']) assert.equal(typeof first?.[key], 'string', key)
      assert.equal(second?.load, 'its own', "a row's own field wins over the run's context")
    } finally {
      if (saved === undefined) delete process.env.TESSERA_BENCH_RECORD
      else process.env.TESSERA_BENCH_RECORD = saved
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

// `npm run bench:chart`: draws the benchmarks' trends from their history (bench/results/*.jsonl)
// as SVG files in docs/benchmarks/, shown in docs/benchmarks.md. A test renders them again from
// the committed history and compares (packages/server/test/docs/benchmarks-docs.test.ts), so a chart can
// never disagree with its data: record a run, then run this and commit both.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Chart, PALETTE, type Point, renderSvg, type Series } from './chart-svg.ts'
import { RESULTS_DIR } from './results.ts'

/** A row of the history, as bench/results.ts writes it (and as the old page's figures were taken). */
export interface HistoryRow {
  bench: string
  metric: string
  value: number
  unit: string
  date: string | null
  [key: string]: unknown
}

export const CHARTS_DIR = resolve(fileURLToPath(import.meta.url), '../../docs/benchmarks')

/** Every row of every bench/results/*.jsonl, file by file in name order. */
export function readHistory(dir = RESULTS_DIR): HistoryRow[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
  return files.flatMap((f) =>
    readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as HistoryRow),
  )
}

/**
 * When a row's run happened, in ms: "2026-11-26T11:10/11:23" (the run's span) starts at 11:10;
 * an ISO timestamp as recorded; a bare date is drawn at noon and flagged as having no time.
 */
export function timeOf(date: string | null): { ms: number; timed: boolean } | null {
  if (date === null) return null
  if (/^\d{4}-\d{2}-\d{2}$/.test(date)) return { ms: Date.parse(`${date}T12:00:00Z`), timed: false }
  const start = date.split('/')[0] ?? date
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(start) ? `${start}:00Z` : start)
  return Number.isNaN(ms) ? null : { ms, timed: true }
}

interface SeriesSpec {
  name: string
  marker: Series['marker']
  dashed?: boolean
  color: string
  match: (row: HistoryRow) => boolean
  value?: (row: HistoryRow) => number
}

/**
 * A time series: its rows' values at their times. A run known only by its day is left out when the
 * series has a timed run that day (it could not be placed among them without inventing a time).
 */
function timeSeries(rows: HistoryRow[], spec: SeriesSpec): Series {
  const picked = rows.filter(spec.match).flatMap((row) => {
    const t = timeOf(row.date)
    return t ? [{ row, t }] : []
  })
  const timedDays = new Set(picked.filter((p) => p.t.timed).map((p) => p.row.date?.slice(0, 10)))
  const points: Point[] = picked
    .filter((p) => p.t.timed || !timedDays.has(p.row.date?.slice(0, 10)))
    .map(({ row, t }) => {
      const y = spec.value ? spec.value(row) : row.value
      const run = typeof row.run === 'string' ? ` (${row.run})` : ''
      return { x: t.ms, y, label: `${spec.name}: ${y} on ${row.date}${run}` }
    })
  return {
    name: spec.name,
    marker: spec.marker,
    color: spec.color,
    points,
    ...(spec.dashed ? { dashed: true } : {}),
  }
}

const [BLUE = '', VERMILLION = '', GREEN = '', PURPLE = ''] = PALETTE

function apiChart(rows: HistoryRow[]): Chart {
  const list10 = (dialect: string, metric: string) => (r: HistoryRow) =>
    r.bench === 'api' && r.metric === metric && r.case === 'list10' && r.dialect === dialect
  return {
    title: 'bench:api — list10 throughput as a share of a bare Fastify route',
    subtitle: 'GET /file/dir/private/ (10 converted files), ours/bare req/s, median of each run’s rounds',
    yLabel: 'ratio to bare Fastify',
    x: { kind: 'time' },
    series: [
      timeSeries(rows, {
        name: 'SQLite',
        marker: 'circle',
        color: BLUE,
        match: list10('sqlite', 'req_per_s'),
        value: (r) => Number(r.ratio),
      }),
      timeSeries(rows, {
        name: 'PostgreSQL',
        marker: 'square',
        color: VERMILLION,
        match: list10('postgres', 'req_per_s'),
        value: (r) => Number(r.ratio),
      }),
      timeSeries(rows, {
        name: 'PostgreSQL floor (bare route + one query)',
        marker: 'diamond',
        dashed: true,
        color: GREEN,
        match: list10('postgres', 'floor_ratio'),
      }),
    ],
    targets: [
      { y: 0.6, label: 'SQLite target 0.6', color: BLUE },
      { y: 0.5, label: 'PostgreSQL target 0.5', color: VERMILLION },
    ],
  }
}

function deliveryRatioChart(rows: HistoryRow[]): Chart {
  const ratio = (metric: string, producers: number) => (r: HistoryRow) =>
    r.bench === 'delivery' && r.metric === metric && r.producers === producers
  return {
    title: 'bench:delivery — Tessera’s events/s over its peers’',
    subtitle: 'SQLite over BullMQ, PostgreSQL over the best of graphile-worker and pg-boss, same run',
    yLabel: 'ratio to the peer',
    x: { kind: 'time' },
    series: [
      timeSeries(rows, {
        name: 'SQLite ÷ BullMQ, 1 producer',
        marker: 'circle',
        color: BLUE,
        match: ratio('ratio_vs_bullmq', 1),
      }),
      timeSeries(rows, {
        name: 'SQLite ÷ BullMQ, 8 producers',
        marker: 'square',
        dashed: true,
        color: BLUE,
        match: ratio('ratio_vs_bullmq', 8),
      }),
      timeSeries(rows, {
        name: 'PostgreSQL ÷ best peer, 1 producer',
        marker: 'circle',
        color: VERMILLION,
        match: ratio('ratio_vs_best_pg_peer', 1),
      }),
      timeSeries(rows, {
        name: 'PostgreSQL ÷ best peer, 8 producers',
        marker: 'square',
        dashed: true,
        color: VERMILLION,
        match: ratio('ratio_vs_best_pg_peer', 8),
      }),
    ],
    targets: [{ y: 1.5, label: 'target 1.5× (both)', color: VERMILLION }],
  }
}

// Runs with the bench's default rounds, events and phases only: a shortened run is not comparable.
const defaultRun = (r: HistoryRow) =>
  typeof r.command !== 'string' || !/--(rounds|events|seconds|rates)\b/.test(r.command)

function deliveryRateChart(rows: HistoryRow[]): Chart {
  const rate = (system: string, dialect: string) => (r: HistoryRow) =>
    r.bench === 'delivery' &&
    r.metric === 'events_per_s' &&
    r.producers === 1 &&
    r.system === system &&
    r.dialect === dialect &&
    defaultRun(r)
  return {
    title: 'bench:delivery — events/s, one producer awaiting each durable enqueue',
    subtitle:
      'median of 3 rounds, 5,000 events, 8 in flight; the host differs between runs: compare within a run',
    yLabel: 'events per second',
    x: { kind: 'time' },
    series: [
      timeSeries(rows, {
        name: 'Tessera, SQLite',
        marker: 'circle',
        color: BLUE,
        match: rate('tessera', 'sqlite'),
      }),
      timeSeries(rows, {
        name: 'BullMQ (Redis)',
        marker: 'triangle',
        dashed: true,
        color: PURPLE,
        match: rate('bullmq', 'redis'),
      }),
      timeSeries(rows, {
        name: 'Tessera, PostgreSQL',
        marker: 'square',
        color: VERMILLION,
        match: rate('tessera', 'postgres'),
      }),
      timeSeries(rows, {
        name: 'graphile-worker',
        marker: 'diamond',
        dashed: true,
        color: GREEN,
        match: rate('graphile-worker', 'postgres'),
      }),
    ],
    targets: [],
  }
}

/** Conversion time over the gltf-transform CLI's, per GLB input, for each recorded run. */
function conversionChart(rows: HistoryRow[]): Chart {
  const timed = rows.filter(
    (r) => r.bench === 'conversion' && r.metric === 'time' && typeof r.ratio === 'number',
  )
  const models = [...new Set(timed.map((r) => String(r.case)))]
  const runKey = (r: HistoryRow) => `${r.date ?? 'date unknown'}, --runs ${String(r.runs ?? '?')}`
  const runs = [...new Set(timed.map(runKey))].slice(-4)
  const markers: Series['marker'][] = ['circle', 'square', 'diamond', 'triangle']
  const series: Series[] = runs.map((run, i) => ({
    name: run,
    marker: markers[i] ?? 'circle',
    color: PALETTE[i] ?? BLUE,
    points: timed
      .filter((r) => runKey(r) === run)
      .map((r) => ({
        x: models.indexOf(String(r.case)),
        y: Number(r.ratio),
        label: `${String(r.case)}: ${String(r.ratio)}× (${run})`,
      })),
  }))
  return {
    title: 'bench:conversion — conversion time over gltf-transform optimize’s',
    subtitle:
      'GLB inputs, each converted in a fresh process like a job; median of the run’s interleaved runs',
    yLabel: 'time ÷ CLI time',
    x: { kind: 'category', labels: models },
    series,
    targets: [{ y: 1.5, label: 'target ≤ 1.5×', color: VERMILLION }],
  }
}

/** Every chart's file name and SVG text, from the given history. */
export function renderCharts(history: HistoryRow[]): Array<{ file: string; svg: string }> {
  // A/B experiments (variants built to be measured, most not kept) are not the product's trend.
  const rows = history.filter((r) => r.experiment === undefined)
  return [
    { file: 'api-list10-ratio.svg', svg: renderSvg(apiChart(rows)) },
    { file: 'delivery-ratio.svg', svg: renderSvg(deliveryRatioChart(rows)) },
    { file: 'delivery-rate.svg', svg: renderSvg(deliveryRateChart(rows)) },
    { file: 'conversion-time.svg', svg: renderSvg(conversionChart(rows)) },
  ]
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const { file, svg } of renderCharts(readHistory())) {
    writeFileSync(join(CHARTS_DIR, file), svg)
    console.log(`wrote docs/benchmarks/${file}`)
  }
}

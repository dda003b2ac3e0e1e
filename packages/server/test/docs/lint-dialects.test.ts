// The lint rule against choosing by database dialect outside the storage kernel (biome.json's
// plugin packages/server/lint/dialect-selection.grit, run by `npm run lint`): the repository's own
// Biome configuration and rule, copied unchanged into a scratch tree, checked against fixture files
// placed where the rule applies and where it does not.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
const BIOME = path.join(ROOT, 'node_modules/.bin/biome')
const RULE = 'packages/server/lint/dialect-selection.grit'

/** Every kind of choice the rule refuses, one a line (the line numbers are what the test expects). */
const CHOICES = `declare const db: { dialect: string; kysely: { $if(c: boolean, f: () => void): void } }
declare const ctx: { db: typeof db }
declare const TEXTS: Record<string, string>
declare function listParam(dialect: string, ids: string[]): unknown
export const a = db.dialect === 'postgres'
export const b = 'sqlite' !== ctx.db.dialect
export const c = TEXTS[db.dialect]
db.kysely.$if(db.dialect === 'postgres', () => {})
switch (db.dialect) {
  case 'sqlite':
}
export const d = listParam(db.dialect, [])
export const e = listParam('postgres', [])
`
const CHOICE_LINES = [5, 6, 7, 8, 9, 10, 12, 13]

/** What code outside the kernel may do: call the database's implementations, show a recorded dialect. */
const CLEAN = `declare const db: { jobStore: { notifiesOtherProcesses: boolean } }
declare const manifest: { dialect: string }
declare function mismatchedDialect(dialect: string, url: string): string | null
export const relay = !db.jobStore.notifiesOtherProcesses
export const shown = \`a backup of a \${manifest.dialect} database\`
export const other = mismatchedDialect(manifest.dialect, 'postgres://x')
export const kind = (k: string) => k === 'convert'
`

/** The fixture's file (relative to the scratch tree) and the lines the rule reports in it. */
async function pluginReports(tree: string): Promise<Map<string, number[]>> {
  const reports = new Map<string, number[]>()
  const { stdout } = await run(BIOME, ['lint', '--reporter=github', '--max-diagnostics=none', '.'], {
    cwd: tree,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }))
  for (const match of stdout.matchAll(/^::error title=plugin,file=([^,]+),line=(\d+),/gm)) {
    const file = path.relative(tree, match[1] ?? '')
    reports.set(file, [...(reports.get(file) ?? []), Number(match[2])])
  }
  return reports
}

describe('lint: no choice by database dialect outside platform/db and the per-database folders', () => {
  let tree: string
  let reports: Map<string, number[]>
  const src = 'packages/server/src'
  const fixtures: Record<string, string> = {
    [`${src}/modules/probe/choices.ts`]: CHOICES,
    [`${src}/platform/probe-clean.ts`]: CLEAN,
    [`${src}/platform/db/probe-choices.ts`]: CHOICES,
    [`${src}/events/sqlite/probe-choices.ts`]: CHOICES,
    [`${src}/platform/jobs/postgres/probe-choices.ts`]: CHOICES,
    // Outside the server's sources (tests, benchmarks, other packages) the rule does not apply.
    'packages/server/test/probe-choices.ts': CHOICES,
  }

  before(async () => {
    tree = mkdtempSync(path.join(tmpdir(), 'tessera-lint-'))
    cpSync(path.join(ROOT, 'biome.json'), path.join(tree, 'biome.json'))
    mkdirSync(path.join(tree, path.dirname(RULE)), { recursive: true })
    cpSync(path.join(ROOT, RULE), path.join(tree, RULE))
    for (const [file, text] of Object.entries(fixtures)) {
      mkdirSync(path.join(tree, path.dirname(file)), { recursive: true })
      writeFileSync(path.join(tree, file), text)
    }
    reports = await pluginReports(tree)
  })

  after(() => rmSync(tree, { recursive: true, force: true }))

  test('every kind of choice in a feature is reported, on its line', () => {
    assert.deepEqual(reports.get(`${src}/modules/probe/choices.ts`), CHOICE_LINES)
  })

  test('calling the implementations and showing a recorded dialect is not a choice', () => {
    assert.equal(reports.get(`${src}/platform/probe-clean.ts`), undefined)
  })

  test('the kernel db folder, sqlite/ and postgres/ folders and files outside src/ may choose', () => {
    assert.deepEqual([...reports.keys()], [`${src}/modules/probe/choices.ts`])
  })
})

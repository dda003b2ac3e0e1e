// docs/architecture.md against the tree, so that what it says about the code cannot go stale
// silently: the ownership table lists exactly the tables the migrations create, with each row type
// where the table says; every source path it names exists; the settings table names every file
// that declares settings; every module has the files the doc says every module has. (The layer
// rules it lists are checked by `npm run lint` itself.)
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { sql } from 'kysely'
import { type DialectUnderTest, dialects } from '../support/harness.ts'

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
const SERVER = path.join(ROOT, 'packages/server')
const SRC = path.join(SERVER, 'src')
const DOC = readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8')

/** Backticked spans that look like paths but are not one file or folder, each with its reason. */
const NOT_PATHS = new Map<string, string>([
  ['modules/<name>/', 'the placeholder of "Adding a module"'],
  ['platform/db/migrations/NNNN_name.ts', "a new migration's name pattern"],
  ['migrations/NNNN_name.ts', "a new migration's name pattern"],
  ['src/**/tables.ts', 'a glob (knip entries)'],
  ['test/**/*.test.ts', 'a glob (knip entries)'],
  ['bench/*.ts', 'a glob (knip entries)'],
])

/** The text of a section, from its heading to the next heading of the same or a higher level. */
function section(heading: string): string {
  const level = heading.split(' ')[0] ?? '#'
  const start = DOC.indexOf(`\n${heading}\n`)
  assert.ok(start >= 0, `docs/architecture.md has no "${heading}" section`)
  const rest = DOC.slice(start + heading.length + 2)
  const next = rest.search(new RegExp(`^#{1,${level.length}} `, 'm'))
  return next < 0 ? rest : rest.slice(0, next)
}

/** The rows (cells) of the Markdown table whose header row starts with `header`. */
function tableRows(text: string, header: string): string[][] {
  const lines = text.split('\n')
  const at = lines.findIndex((line) => line.startsWith(header))
  assert.ok(at >= 0, `no table headed "${header}"`)
  const rows: string[][] = []
  for (const line of lines.slice(at + 2)) {
    if (!line.startsWith('|')) break
    rows.push(
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim()),
    )
  }
  return rows
}

function backticked(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '')
}

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) =>
    statSync(path.join(dir, f)).isFile(),
  )
}

const SOURCES = filesUnder(SRC).filter((f) => f.endsWith('.ts'))

/** The tables a fresh database has after every migration (the migrations' own bookkeeping aside). */
async function migratedTables(dialect: DialectUnderTest): Promise<string[]> {
  const { db, pgSchema, drop } = await dialect.open()
  try {
    const query =
      pgSchema === undefined
        ? sql<{ name: string }>`select name from sqlite_master where type = 'table'`
        : sql<{ name: string }>`select table_name as name from information_schema.tables
            where table_schema = ${pgSchema} and table_type = 'BASE TABLE'`
    const { rows } = await query.execute(db.kysely)
    return rows.map((r) => r.name).filter((name) => !/^(sqlite_|kysely_migration)/.test(name))
  } finally {
    await drop()
  }
}

/**
 * Tables created by migrations that run on PostgreSQL only (their `up` returns unless the adapter is
 * PostgreSQL's), read from their source: without a PostgreSQL database they exist nowhere else.
 */
function postgresOnlyTables(): string[] {
  const dir = path.join(SRC, 'platform/db/migrations')
  return readdirSync(dir)
    .map((f) => readFileSync(path.join(dir, f), 'utf8'))
    .filter((text) => /if \(!\(db\.getExecutor\(\)\.adapter instanceof PostgresAdapter\)\) return/.test(text))
    .flatMap((text) => [...text.matchAll(/create table (\w+)/gi)].map((m) => m[1] ?? ''))
}

/** The table names each Kysely `Database` declaration of `file` holds (a `declare module` block, or schema.ts's own). */
function declaredTables(file: string): string[] {
  const text = readFileSync(path.join(SRC, file), 'utf8')
  const blocks =
    file === 'platform/db/schema.ts'
      ? [...text.matchAll(/^export interface Database \{([\s\S]*?)^\}/gm)]
      : [...text.matchAll(/^declare module '[^']+' \{([\s\S]*?)^\}/gm)]
  return blocks.flatMap((b) => [...(b[1] ?? '').matchAll(/^\s+(\w+): \w+/gm)].map((m) => m[1] ?? ''))
}

describe('docs/architecture.md, "Who owns which table"', () => {
  const rows = tableRows(section('## Who owns which table'), '| table | owner | row type in |')
  const documented = rows.flatMap((cells) => backticked(cells[0] ?? ''))
  let created: string[] = []

  before(async () => {
    const found = new Set(postgresOnlyTables())
    for (const dialect of dialects()) for (const table of await migratedTables(dialect)) found.add(table)
    created = [...found].sort()
  })

  test('lists exactly the tables the migrations create', () => {
    assert.ok(created.includes('accounts'), `reading the migrated tables went wrong: ${created.join(', ')}`)
    assert.deepEqual([...documented].sort(), created)
  })

  test("names an owner that exists and each table's row type where it is declared", () => {
    const everyDeclared = new Set(SOURCES.flatMap((f) => (f.endsWith('.ts') ? declaredTables(f) : [])))
    for (const cells of rows) {
      const tables = backticked(cells[0] ?? '')
      const owner = backticked(cells[1] ?? '')[0] ?? ''
      assert.ok(existsSync(path.join(SRC, owner)), `owner ${owner} of ${tables.join(', ')} does not exist`)
      const rowTypeFile = backticked(cells[2] ?? '')[0]
      if (rowTypeFile === undefined) {
        for (const table of tables)
          assert.ok(!everyDeclared.has(table), `${table} has a row type: name its file`)
        continue
      }
      assert.ok(existsSync(path.join(SRC, rowTypeFile)), `${rowTypeFile} does not exist`)
      const declared = declaredTables(rowTypeFile)
      for (const table of tables)
        assert.ok(declared.includes(table), `${rowTypeFile} does not declare ${table}`)
    }
  })
})

/** The folders a path named in `heading`'s section may be relative to, besides src/ and the root. */
function baseFolders(heading: string): string[] {
  const folder = /^#+ (\S+\/)$/.exec(heading)?.[1]
  return folder ? [folder] : []
}

/** Whether a named path exists: from src/, the root or packages/server, its section's folder, or as a file's tail in src/. */
function pathExists(named: string, bases: string[]): boolean {
  const candidates = [SRC, ROOT, SERVER, ...bases.map((b) => path.join(SRC, b))].map((dir) =>
    path.join(dir, named),
  )
  if (candidates.some((c) => existsSync(c))) return true
  const tail = named.replace(/\/$/, '')
  return named.endsWith('/')
    ? SOURCES.some((f) => path.dirname(f) === tail || path.dirname(f).endsWith(`/${tail}`))
    : SOURCES.some((f) => f === tail || f.endsWith(`/${tail}`))
}

/** Every backticked span of the doc (code blocks aside) that looks like a source path, with its section's heading. */
function namedPaths(): Array<{ named: string; heading: string }> {
  // Code blocks blanked out (their backticks are not spans); a span may run over a line break.
  const prose = DOC.replace(/^```[\s\S]*?^```$/gm, '')
  const headings = [...prose.matchAll(/^#+ .*$/gm)]
  return [...prose.matchAll(/`([^`]+)`/g)]
    .map((m) => ({ named: m[1] ?? '', at: m.index }))
    .filter(({ named }) => /^[\w.@/*<>-]+(\.ts|\/)$/.test(named))
    .map(({ named, at }) => ({ named, heading: headings.findLast((h) => h.index < at)?.[0] ?? '' }))
}

describe('docs/architecture.md, named paths', () => {
  test("every source path it names exists (src/, the root, or its section's folder)", () => {
    const missing = namedPaths()
      .filter(({ named }) => !NOT_PATHS.has(named))
      .filter(({ named, heading }) => !pathExists(named, baseFolders(heading)))
      .map(({ named, heading }) => `${named} (${heading})`)
    assert.deepEqual(missing, [])
  })

  test('every exception is still named in the doc', () => {
    const named = new Set(namedPaths().map((p) => p.named))
    for (const [span, reason] of NOT_PATHS)
      assert.ok(named.has(span), `${span} (${reason}) is no longer in the doc`)
  })
})

describe('docs/architecture.md, "Settings"', () => {
  const text = section('## Settings')
  const named = tableRows(text, '| declared in | variables |').flatMap((cells) =>
    backticked(cells[0] ?? '').filter((span) => span.endsWith('.ts')),
  )

  test('names every file that declares settings, and only those', () => {
    const declaring = SOURCES.filter((f) =>
      /^export const \w+Settings = \[/m.test(readFileSync(path.join(SRC, f), 'utf8')),
    )
    assert.deepEqual([...named].sort(), [...declaring].sort())
  })

  test('names every settings.ts (platform/settings.ts, the shape of a declaration, in its text)', () => {
    for (const file of SOURCES.filter((f) => path.basename(f) === 'settings.ts')) {
      if (file === 'platform/settings.ts') assert.ok(text.includes(`\`${file}\``), `${file} is not named`)
      else assert.ok(named.includes(file), `${file} is not in the settings table`)
    }
  })
})

describe('docs/architecture.md, "modules/"', () => {
  const text = section('### modules/')
  const modulesDir = path.join(SRC, 'modules')
  const folders = readdirSync(modulesDir).filter((f) => statSync(path.join(modulesDir, f)).isDirectory())

  test('every module has the files the doc says every module has, index.ts among them', () => {
    const always = /same shape \(([^)]*) always;/.exec(text)?.[1]
    assert.ok(always, 'the sentence naming what every module has is gone')
    const files = backticked(always)
    assert.ok(files.includes('index.ts'), 'index.ts, the only door, is no longer among them')
    for (const folder of folders)
      for (const file of files)
        assert.ok(existsSync(path.join(modulesDir, folder, file)), `modules/${folder}/${file} is missing`)
  })

  test('the module table lists every module folder, and only those', () => {
    const listed = tableRows(text, '| module | what it does |').flatMap((cells) => backticked(cells[0] ?? ''))
    assert.deepEqual([...listed].sort(), [...folders].sort())
  })

  test('a module has tables.ts exactly when the ownership table names it as an owner', () => {
    const owners = tableRows(section('## Who owns which table'), '| table | owner | row type in |')
      .map((cells) => backticked(cells[1] ?? '')[0] ?? '')
      .filter((owner) => owner.startsWith('modules/'))
      .map((owner) => owner.slice('modules/'.length))
    const withTables = folders.filter((f) => existsSync(path.join(modulesDir, f, 'tables.ts')))
    assert.deepEqual([...new Set(owners)].sort(), withTables.sort())
  })
})

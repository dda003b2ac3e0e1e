// The migration list (platform/db/migrations/index.ts) and the migration files agree: a migration
// file that is not listed would never run, and a listed name without its file would be a typo.
import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { migrationList } from '../../src/platform/db/migrations/index.ts'

const folder = new URL('../../src/platform/db/migrations/', import.meta.url)
const MIGRATION_FILE = /^(\d{4})_[a-z0-9]+(?:_[a-z0-9]+)*\.ts$/

/** File names without `.ts` of every migration in the folder (index.ts holds the list). */
function migrationFiles(): string[] {
  const files = readdirSync(fileURLToPath(folder)).filter((file) => file !== 'index.ts')
  const misnamed = files.filter((file) => !MIGRATION_FILE.test(file))
  assert.deepEqual(misnamed, [], 'every file beside index.ts is a migration named NNNN_name.ts')
  return files.map((file) => file.slice(0, -'.ts'.length)).sort()
}

const listedNames = migrationList.map(({ name }) => name)

test('every migration file is listed, and every listed migration has a file', () => {
  const files = migrationFiles()
  assert.deepEqual(
    files.filter((name) => !listedNames.includes(name)),
    [],
    'migration files missing from the list',
  )
  assert.deepEqual(
    listedNames.filter((name) => !files.includes(name)),
    [],
    'listed migrations without a file',
  )
})

test('the list is numbered 0001, 0002, ... in order, without gaps or duplicates', () => {
  assert.ok(migrationList.length > 0)
  const numbers = listedNames.map((name) => Number(name.slice(0, 4)))
  assert.deepEqual(
    numbers,
    listedNames.map((_, index) => index + 1),
    `numbers in list order: ${numbers.join(', ')}`,
  )
  // Kysely runs migrations in name order: it must be the list's order.
  assert.deepEqual([...listedNames].sort(), listedNames)
})

test('each listed migration is the one its file of that name exports', async () => {
  for (const { name, migration } of migrationList) {
    assert.match(`${name}.ts`, MIGRATION_FILE)
    const module = (await import(new URL(`${name}.ts`, folder).href)) as { migration?: unknown }
    assert.equal(module.migration, migration, `${name}: the list holds another file's migration`)
    assert.equal(typeof migration.up, 'function', `${name}: no up()`)
  }
})

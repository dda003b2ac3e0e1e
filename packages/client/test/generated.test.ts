// The committed generated types must be what openapi-typescript makes of the current openapi.json.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { test } from 'node:test'
import { generate, OUTPUT } from '../scripts/generate.ts'

test('src/generated/api.ts is up to date with openapi.json (npm run generate -w @tessera/client)', async () => {
  const committed = await readFile(OUTPUT, 'utf8')
  const fresh = await generate()
  assert.ok(fresh.includes('"/file/upload/"'), 'the generator produced the paths')
  assert.equal(committed, fresh, 'stale: run `npm run generate -w @tessera/client` and commit the result')
})

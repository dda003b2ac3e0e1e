// A second generator: a client generated from openapi.json by @hey-api/openapi-ts compiles with the
// workspace's tsc, names operations after their operationIds, and reaches the right data against a
// real server, sub-folders included (the spec's wildcard path is not in the document: `listFiles`
// with `?path=` lists a folder).
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { Tessera } from '@tessera/client'
import { uploadPath } from '@tessera/client/node'
import { SMALL_HOUSE } from './support/receiver.ts'
import { type Instance, startTessera } from './support/server.ts'

const SPEC = fileURLToPath(new URL('../../../openapi.json', import.meta.url))
const ALIAS = fileURLToPath(new URL('./support/typescript5-for-hey-api.mjs', import.meta.url))
const HEY_API = fileURLToPath(import.meta.resolve('@hey-api/openapi-ts')).replace(/index\.mjs$/, 'run.mjs')
const TSC = fileURLToPath(new URL('../../../node_modules/.bin/tsc', import.meta.url))

let dir: string
let server: Instance
before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'tessera-hey-api-'))
  server = await startTessera('sqlite', {}, ['--no-workers'])
})
after(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

interface GeneratedSdk {
  listFiles(options: {
    baseUrl: string
    headers: Record<string, string>
    query?: { path?: string; limit?: string }
  }): Promise<{ data?: { files: Array<{ _id: string }>; nextCursor?: string | null }; response: Response }>
}

test('@hey-api/openapi-ts generates a client that compiles, is named by operationId and lists a sub-folder', async () => {
  const out = path.join(dir, 'src')
  execFileSync(process.execPath, ['--import', ALIAS, HEY_API, '-i', SPEC, '-o', out], { stdio: 'pipe' })
  const sdk = readFileSync(path.join(out, 'sdk.gen.ts'), 'utf8')
  for (const name of ['listFiles', 'createAnnotation', 'deleteAnnotation', 'retryDelivery', 'getFile'])
    assert.match(sdk, new RegExp(`export const ${name} =`), name)
  assert.doesNotMatch(sdk, /%7B|\{\*\}/)

  // CommonJS output: the generated files import each other without extensions.
  const js = path.join(dir, 'js')
  const args = ['--strict', '--module', 'commonjs', '--target', 'es2022', '--lib', 'es2022,dom,dom.iterable']
  execFileSync(TSC, [...args, '--skipLibCheck', '--outDir', js, path.join(out, 'index.ts')], {
    cwd: dir,
    stdio: 'pipe',
  })
  writeFileSync(path.join(js, 'package.json'), '{"type":"commonjs"}')

  const tessera = await Tessera.connect({ url: server.url, ...server.admin })
  try {
    const deep = await uploadPath(tessera, SMALL_HOUSE.pathname, { parent: '/generated/deep' })
    await uploadPath(tessera, SMALL_HOUSE.pathname, { parent: '/generated' })
    const generated = createRequire(path.join(js, 'index.js'))('./index.js') as GeneratedSdk
    const headers = {
      authorization: `Bearer ${tessera.authToken}`,
      'x-service-session': tessera.sessionToken,
    }
    const listed = await generated.listFiles({
      baseUrl: server.url,
      headers,
      query: { path: '/generated/deep' },
    })
    assert.equal(listed.response.status, 200)
    assert.deepEqual(
      listed.data?.files.map((f) => f._id),
      [deep._id],
    )
  } finally {
    await tessera.close().catch(() => {})
  }
})

// Writes the OpenAPI document the code describes to openapi.json at the repo root
// (`npm run openapi`). test/platform/http.test.ts fails when the committed file drifts from the code.
import { rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildApp } from '../src/app/app.ts'
import { loadConfig } from '../src/app/config.ts'
import { tempDir } from '../test/support/harness.ts'

export const OPENAPI_FILE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../openapi.json',
)

export async function renderOpenApi(): Promise<string> {
  // A throwaway data dir: the app needs one (database, key), the document does not.
  const dataDir = tempDir()
  try {
    const app = await buildApp(loadConfig({ TESSERA_DATA_DIR: dataDir, TESSERA_LOG_LEVEL: 'silent' }))
    try {
      await app.ready()
      return `${JSON.stringify(app.swagger(), null, 2)}\n`
    } finally {
      await app.close()
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(OPENAPI_FILE, await renderOpenApi())
  process.stdout.write(`wrote ${OPENAPI_FILE}\n`)
}

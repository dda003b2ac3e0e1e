// Builds the console once when packages/console/dist is missing (root `prestart`), so that
// `npm install && npm start` serves it from a clean clone. An existing build is left alone.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
if (!existsSync(path.join(root, 'dist', 'index.html'))) {
  process.stdout.write('Building the console (first start)…\n')
  const run = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' })
  process.exit(run.status ?? 1)
}

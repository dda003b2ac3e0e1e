// @tessera/cli installs on its own: it imports only Node built-ins, its own files and the packages
// it declares (the SDK, never the server), and its packed tarball holds the bin and the built dist/.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import { builtinModules } from 'node:module'
import path from 'node:path'
import { test } from 'node:test'
import { promisify } from 'node:util'

const ROOT = path.resolve(import.meta.dirname, '..')
const manifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>
  bin: Record<string, string>
}

/** The package a bare import specifier names (`@scope/name/sub` → `@scope/name`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier)
}

test('the sources import only built-ins, their own files and declared dependencies; never the server', async () => {
  assert.equal(manifest.dependencies['@tessera/server'], undefined)
  assert.ok(manifest.dependencies['@tessera/client'])
  const builtins = new Set(builtinModules)
  for (const file of await readdir(path.join(ROOT, 'src'))) {
    const text = await readFile(path.join(ROOT, 'src', file), 'utf8')
    for (const [, specifier = ''] of text.matchAll(/(?:from|import\()\s*'([^']+)'/g)) {
      if (specifier.startsWith('.') || specifier.startsWith('node:') || builtins.has(specifier)) continue
      // server-commands.ts resolves @tessera/server's package.json to run its bin, never imports it.
      if (specifier === '@tessera/server/package.json') continue
      assert.ok(manifest.dependencies[packageOf(specifier)], `${file} imports undeclared ${specifier}`)
    }
  }
})

test('npm pack: the bin, no TypeScript sources or tests; the packed bin runs the built dist/', async () => {
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
  })
  const [packed] = JSON.parse(stdout) as { files: { path: string }[] }[]
  const files = (packed?.files ?? []).map((f) => f.path)
  assert.ok(files.includes('bin/tessera.js'), files.join(' '))
  assert.ok(!files.some((f) => f.startsWith('src/') || f.startsWith('test/')), files.join(' '))
  assert.equal(manifest.bin.tessera, './bin/tessera.js')
  const bin = await readFile(path.join(ROOT, 'bin/tessera.js'), 'utf8')
  assert.match(bin, /import\('\.\.\/dist\/main\.js'\)/)
  const build = JSON.parse(await readFile(path.join(ROOT, 'tsconfig.build.json'), 'utf8')) as {
    compilerOptions: { outDir: string; rootDir: string }
  }
  assert.deepEqual([build.compilerOptions.rootDir, build.compilerOptions.outDir], ['src', 'dist'])
})

// @tessera/client and @tessera/cli as a user installs them: `npm pack` (which builds dist/), then an
// install of both tarballs into a fresh project in the OS temp dir (support/packed.ts: dependencies
// from the workspace's node_modules, no registry, no network). Then, against a live server:
// a plain JavaScript consumer, a strict TypeScript consumer (checked by the workspace's tsc with no
// skipLibCheck, then run by Node), a browser bundle of the root entry by esbuild, and the installed
// `tessera` command.
import assert from 'node:assert/strict'
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { type Installed, type Packed, packAndInstall, TSC } from './support/packed.ts'
import { FIXTURE } from './support/receiver.ts'
import { type Instance, startTessera } from './support/server.ts'

const CONSUMER = fileURLToPath(new URL('consumer/', import.meta.url))

let installed: Installed
let client: Packed
let tessera: Instance
let model: string

before(async () => {
  const started = Date.now()
  ;[installed, tessera] = await Promise.all([
    packAndInstall(['@tessera/client', '@tessera/cli'], ['@types/node']),
    startTessera('sqlite'),
  ])
  client = installed.packed[0] as Packed
  for (const name of await readdir(CONSUMER))
    await copyFile(path.join(CONSUMER, name), path.join(installed.project, name))
  const { stlCube } = (await import(new URL('test/support/models.ts', FIXTURE).href)) as {
    stlCube: (name: string) => Buffer
  }
  model = path.join(installed.project, 'cube.stl')
  await writeFile(model, stlCube('cube'))
  process.stdout.write(`# packed and installed, server started in ${Date.now() - started} ms\n`)
})

after(async () => {
  await tessera?.stop()
  await installed?.remove()
})

test('the tarball holds dist/ with types and maps, the sources they map to, and no tests', async () => {
  const files = client.files.map((f) => f.path).sort()
  const outside = files.filter(
    (f) => !/^(dist|src)\//.test(f) && !['package.json', 'README.md', 'LICENSE'].includes(f),
  )
  assert.deepEqual(outside, [], 'only dist/, src/, package.json, README.md and LICENSE')
  assert.ok(files.includes('README.md') && files.includes('LICENSE'))
  assert.deepEqual(
    files.filter((f) => /(^|\/)test\/|\.test\.|tsbuildinfo|tsconfig/.test(f)),
    [],
  )
  for (const entry of ['index', 'node', 'webhooks']) {
    for (const ext of ['.js', '.d.ts', '.js.map', '.d.ts.map'])
      assert.ok(files.includes(`dist/${entry}${ext}`), `dist/${entry}${ext}`)
  }
  // Every source map names files inside the package.
  const root = path.join(installed.project, 'node_modules/@tessera/client')
  const maps = files.filter((f) => f.endsWith('.map'))
  assert.ok(maps.length >= 20)
  for (const map of maps) {
    const { sources } = JSON.parse(await readFile(path.join(root, map), 'utf8')) as { sources: string[] }
    for (const source of sources) {
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(map), source))
      assert.ok(files.includes(resolved), `${map} → ${source} is in the tarball`)
    }
  }
  // Every export target of the published manifest exists in the tarball.
  const manifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, string | Record<string, string>>
  }
  for (const target of Object.values(manifest.exports).flatMap((t) =>
    typeof t === 'string' ? [t] : Object.values(t),
  )) {
    assert.ok(files.includes(target.replace(/^\.\//, '')), `export target ${target}`)
  }
})

test('a JavaScript project: connect, upload a model, wait until ready, list, export BCF, verify a webhook delivery', async () => {
  const { username, password } = tessera.admin
  const { stdout } = await installed.run(process.execPath, [
    'consumer.mjs',
    tessera.url,
    username,
    password,
    model,
  ])
  assert.deepEqual(JSON.parse(stdout), {
    state: 'ready',
    listed: ['/packed/cube.stl'],
    bcf: ['cube.bcfzip', 'PK'],
    event: 'file_optimized',
    sameFile: true,
    tampered: 'bad_signature',
  })
})

test('a strict TypeScript project: tsc without skipLibCheck (no Node types for the root entry), then run', async () => {
  // The browser part with `types: []` (resolved as Node does, then as Vite and esbuild projects
  // do), then the whole with Node's types for @tessera/client/node.
  await installed.run(process.execPath, [TSC, '-p', 'tsconfig.json'])
  await installed.run(process.execPath, [TSC, '-p', 'tsconfig.bundler.json'])
  await installed.run(process.execPath, [TSC, '-p', 'tsconfig.node.json'])
  const { username, password } = tessera.admin
  const { stdout } = await installed.run(process.execPath, [
    'main.ts',
    tessera.url,
    username,
    password,
    model,
  ])
  assert.deepEqual(JSON.parse(stdout), {
    state: 'ready',
    listed: ['/typed/typed.stl'],
    missing: 'NOT_FOUND',
    verified: 'file',
    searched: '= 0',
    sameBytes: true,
  })
})

test('a strict TypeScript project: comparing a file state with a non-state is a compile error', async () => {
  // FileView.state is the union of the states: with `string` this would compile.
  await writeFile(
    path.join(installed.project, 'wrong.ts'),
    "import type { FileView } from '@tessera/client'\nexport const done = (f: FileView) => f.state === 'done'\n",
  )
  await writeFile(
    path.join(installed.project, 'tsconfig.wrong.json'),
    JSON.stringify({ extends: './tsconfig.json', files: ['wrong.ts'] }),
  )
  await assert.rejects(installed.run(process.execPath, [TSC, '-p', 'tsconfig.wrong.json']), /TS2367/)
})

test('the root entry bundles for the browser with no Node built-in and nothing external; ./node does not', async () => {
  const bundle = (contents: string) =>
    build({
      stdin: { contents, resolveDir: installed.project, loader: 'js' },
      absWorkingDir: installed.project,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      metafile: true,
      logLevel: 'silent',
    })
  const result = await bundle("export * from '@tessera/client'\nexport * from '@tessera/client/webhooks'\n")
  assert.deepEqual(result.errors, [])
  const inputs = Object.keys(result.metafile.inputs)
  assert.ok(
    inputs.some((i) => i.startsWith('node_modules/@tessera/client/dist/')),
    inputs.join('\n'),
  )
  // Only the installed packages; `(disabled):crypto` is bcryptjs's own `browser` field leaving its
  // Node fallback out (it uses Web Crypto there), not a Node built-in.
  assert.deepEqual(
    inputs.filter((i) => !i.startsWith('node_modules/') && i !== '<stdin>' && i !== '(disabled):crypto'),
    [],
  )
  const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports)
  assert.deepEqual(
    imports.filter((i) => i.external),
    [],
    'nothing left external',
  )
  // The Node entry is what the check would catch: esbuild refuses its node: imports for a browser.
  await assert.rejects(bundle("export * from '@tessera/client/node'\n"), /node:/)
})

test('the CLI from its tarball: --version, ls of what the consumers uploaded, help naming where the server commands live', async () => {
  const cli = installed.packed[1] as Packed
  assert.equal(cli.name, '@tessera/cli')
  const files = cli.files.map((f) => f.path)
  assert.ok(files.includes('dist/main.js') && !files.some((f) => f.startsWith('src/')), files.join(' '))
  // The bin as npm linked it into the project, run by this Node (its shebang would take PATH's).
  const bin = path.join(installed.project, 'node_modules/.bin/tessera')
  const runCli = (args: string[], env: Record<string, string> = {}) =>
    installed.run(process.execPath, [bin, ...args], 60_000, {
      XDG_CONFIG_HOME: path.join(installed.project, '.config'),
      ...env,
    })
  assert.equal((await runCli(['--version'])).stdout.trim(), cli.version)
  assert.match((await runCli(['--help'])).stdout, /NOT installed here: they come with @tessera\/server/)
  const { username, password } = tessera.admin
  const credentials = { TESSERA_URL: tessera.url, TESSERA_USERNAME: username, TESSERA_PASSWORD: password }
  const { stdout } = await runCli(['ls', '/packed', '--json'], credentials)
  const listed = JSON.parse(stdout) as Array<{ key: string; state: string }>
  assert.deepEqual(
    listed.map((f) => [f.key, f.state]),
    [['/packed/cube.stl', 'ready']],
  )
})

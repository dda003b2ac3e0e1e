// Installs workspace packages the way a user gets them: `npm pack` (which runs each package's
// `prepack`, i.e. its build), then `npm install` of the tarballs into a fresh project in the OS temp
// dir, where no workspace node_modules is visible. The packages' dependencies are packed from the
// workspace's own node_modules and installed from those tarballs too: no registry, no network, and
// no dependence on what the npm cache holds (after `npm ci` it has tarballs but no package
// metadata, so `npm install --offline <tarball>` alone fails with ENOTCACHED). The npm cache of
// the install is a fresh folder inside the project, so the check also holds on a clean machine.
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root (packages/client/test/support → four levels up). */
export const WORKSPACE = path.resolve(fileURLToPath(import.meta.url), '../../../../..')
/** The workspace's TypeScript compiler, used by path (a consumer project has none installed). */
export const TSC = path.join(WORKSPACE, 'node_modules/typescript/bin/tsc')

export interface PackedFile {
  path: string
  size: number
}

/** One tarball, as `npm pack --json` describes it. */
export interface Packed {
  name: string
  version: string
  /** Absolute path of the .tgz. */
  tarball: string
  files: PackedFile[]
}

export interface Installed {
  /** The consumer project's folder (in the OS temp dir). */
  project: string
  /** The workspace packages' tarballs, in the order asked. */
  packed: Packed[]
  /** Tarballs of the dependencies installed with them (from the workspace's node_modules). */
  dependencies: Packed[]
  /** Runs a command in the project with a clean environment (see `cleanEnv`) plus `env`. */
  run(
    command: string,
    args: string[],
    timeoutMs?: number,
    env?: Record<string, string>,
  ): Promise<{ stdout: string; stderr: string }>
  remove(): Promise<void>
}

/**
 * The environment of a process a user would start: no `npm_*` variables from the `npm test` that
 * runs us (`npm_config_workspace` and the like would change what a nested npm does) and no
 * NODE_OPTIONS (the workspace's `--conditions=@tessera/source` must not reach a consumer).
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && key !== 'NODE_OPTIONS' && key !== 'INIT_CWD') env[key] = value
  }
  return { ...env, ...extra }
}

export function run(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env: options.env, timeout: options.timeoutMs ?? 120_000, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        if (error)
          reject(new Error(`${command} ${args.join(' ')} failed (${error.message}):\n${stdout}\n${stderr}`))
        else resolve({ stdout, stderr })
      },
    )
  })
}

interface Manifest {
  name: string
  version: string
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
}

async function manifest(dir: string): Promise<Manifest> {
  return JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as Manifest
}

/** The workspace packages by name → folder (from the root package.json's `workspaces`). */
export async function workspacePackages(): Promise<Map<string, string>> {
  const root = JSON.parse(await readFile(path.join(WORKSPACE, 'package.json'), 'utf8')) as {
    workspaces: string[]
  }
  const found = new Map<string, string>()
  for (const folder of root.workspaces) {
    const dir = path.join(WORKSPACE, folder)
    found.set((await manifest(dir)).name, dir)
  }
  return found
}

/** Where Node would find `name` from `dir`: the nearest node_modules up the tree holding it. */
function installedDir(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name)
    if (existsSync(path.join(candidate, 'package.json'))) return candidate
    if (dir === path.dirname(dir)) return undefined
  }
}

/**
 * Folders of every package the given ones need at run time (dependencies, optional and peer
 * dependencies, transitively), as installed in the workspace; workspace packages are left out (they
 * are packed themselves, and must be asked for: a missing one is an error).
 */
export async function dependencyClosure(dirs: string[], workspace: Map<string, string>): Promise<string[]> {
  const asked = new Set(await Promise.all(dirs.map((d) => realpath(d))))
  const found = new Map<string, string>()
  const queue = [...asked]
  while (queue.length > 0) {
    const dir = queue.shift() as string
    const pkg = await manifest(dir)
    const optional = new Set([
      ...Object.keys(pkg.optionalDependencies ?? {}),
      ...Object.entries(pkg.peerDependenciesMeta ?? {})
        .filter(([, meta]) => meta.optional)
        .map(([name]) => name),
    ])
    const names = new Set([
      ...Object.keys(pkg.dependencies ?? {}),
      ...Object.keys(pkg.optionalDependencies ?? {}),
      ...Object.keys(pkg.peerDependencies ?? {}),
    ])
    for (const name of names) {
      const ownDir = workspace.get(name)
      if (ownDir) {
        if (!asked.has(await realpath(ownDir))) throw new Error(`${pkg.name} needs ${name}: pack it too`)
        continue
      }
      const at = installedDir(name, dir)
      if (!at) {
        if (optional.has(name)) continue
        throw new Error(`${pkg.name} needs ${name}, which is not installed in the workspace`)
      }
      const real = await realpath(at)
      if (!found.has(real) && !asked.has(real)) {
        found.set(real, name)
        queue.push(real)
      }
    }
  }
  return [...found.keys()]
}

async function pack(dirs: string[], into: string, ignoreScripts: boolean): Promise<Packed[]> {
  if (dirs.length === 0) return []
  const args = ['pack', ...dirs, '--json', '--pack-destination', into, '--loglevel=error']
  if (ignoreScripts) args.push('--ignore-scripts')
  const { stdout } = await run('npm', args, { cwd: into, env: cleanEnv(), timeoutMs: 180_000 })
  const answer = JSON.parse(stdout) as Array<{
    name: string
    version: string
    filename: string
    files: PackedFile[]
  }>
  return answer.map((entry) => ({
    name: entry.name,
    version: entry.version,
    tarball: path.join(into, entry.filename),
    files: entry.files,
  }))
}

/**
 * Packs the named workspace packages (running their `prepack` builds), packs their dependencies
 * from the workspace's node_modules, and installs all of it into a new project in the OS temp dir.
 * `extra` names further packages of the workspace's node_modules to install (e.g. `@types/node`
 * for a TypeScript consumer of a Node entry).
 */
export async function packAndInstall(packages: string[], extra: string[] = []): Promise<Installed> {
  const workspace = await workspacePackages()
  const dirs = packages.map((name) => {
    const dir = workspace.get(name)
    if (!dir) throw new Error(`${name} is not a workspace package`)
    return dir
  })
  const project = await mkdtemp(path.join(await realpath(tmpdir()), 'tessera-packed-'))
  const tarballs = path.join(project, '.tarballs')
  await mkdir(tarballs)
  const extraDirs = extra.map((name) => {
    const at = installedDir(name, WORKSPACE)
    if (!at) throw new Error(`${name} is not installed in the workspace`)
    return at
  })
  const packed = await pack(dirs, tarballs, false)
  const dependencies = await pack(
    [...(await dependencyClosure([...dirs, ...extraDirs], workspace)), ...extraDirs],
    tarballs,
    true,
  )
  await writeFile(
    path.join(project, 'package.json'),
    `${JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2)}\n`,
  )
  const env = cleanEnv({ npm_config_cache: path.join(project, '.npm-cache') })
  const all = [...packed, ...dependencies].map((p) => p.tarball)
  await run(
    'npm',
    ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', ...all],
    { cwd: project, env, timeoutMs: 180_000 },
  )
  return {
    project,
    packed,
    dependencies,
    run: (command, args, timeoutMs, extraEnv) =>
      run(command, args, { cwd: project, env: cleanEnv(extraEnv), timeoutMs }),
    remove: () => rm(project, { recursive: true, force: true }),
  }
}

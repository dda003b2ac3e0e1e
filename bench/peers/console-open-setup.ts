// The console-open bench's pieces that are not measurement (bench/console-open.ts): the model it
// opens, a `tessera serve` started from a given tree (this worktree, or a copy of another git ref:
// the "before" of a change), and the tree copy itself.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Document, NodeIO } from '@gltf-transform/core'

export const ROOT = path.resolve(import.meta.dirname, '../..')

/** Deterministic noise in [-1, 1): the model is the same at every run. */
function noise(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 31 - 1
  }
}

/** One bumpy sphere of `n`×`n` segments: positions, normals (of the sphere) and indices. */
function part(document: Document, name: string, n: number, random: () => number) {
  const positions: number[] = []
  const normals: number[] = []
  for (let i = 0; i <= n; i++)
    for (let j = 0; j <= n; j++) {
      const theta = (i / n) * Math.PI
      const phi = (j / n) * 2 * Math.PI
      const nx = Math.sin(theta) * Math.cos(phi)
      const ny = Math.cos(theta)
      const nz = Math.sin(theta) * Math.sin(phi)
      const r = 1 + 0.02 * random()
      positions.push(nx * r, ny * r, nz * r)
      normals.push(nx, ny, nz)
    }
  const indices: number[] = []
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const a = i * (n + 1) + j
      indices.push(a, a + n + 1, a + 1, a + 1, a + n + 1, a + n + 2)
    }
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(new Float32Array(positions)))
    .setAttribute('NORMAL', document.createAccessor().setType('VEC3').setArray(new Float32Array(normals)))
    .setIndices(document.createAccessor().setType('SCALAR').setArray(new Uint32Array(indices)))
    .setMaterial(document.createMaterial(name).setBaseColorFactor([0.2 + random() * 0.3, 0.4, 0.6, 1]))
  return document.createMesh(name).addPrimitive(primitive)
}

/** A machine of `parts` named parts in a grid (a 4 MB GLB at 20 parts of 64×64 segments). */
export async function benchModel(parts = 20, segments = 64): Promise<Uint8Array> {
  const document = new Document()
  const buffer = document.createBuffer()
  const scene = document.createScene('Scene')
  const root = document.createNode('Machine')
  scene.addChild(root)
  const random = noise(30)
  for (let k = 0; k < parts; k++) {
    const node = document.createNode(`Part ${k + 1}`).setMesh(part(document, `part${k}`, segments, random))
    root.addChild(node.setTranslation([(k % 6) * 2.5, Math.floor(k / 6) * 2.5, 0]))
  }
  for (const accessor of document.getRoot().listAccessors()) accessor.setBuffer(buffer)
  return new NodeIO().writeBinary(document)
}

export interface Served {
  baseUrl: string
  adminPassword: string
  stop: () => Promise<void>
}

/** `tessera serve` of the tree at `root` (SQLite, temp data dir), as the console tests start it. */
export async function serve(root: string): Promise<Served> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-bench-open-'))
  const env = {
    ...process.env,
    TESSERA_DATA_DIR: dataDir,
    TESSERA_DATABASE_URL: '',
    TESSERA_LOG_LEVEL: 'info',
    TESSERA_LICENSES: '50',
    PORT: '0',
    HOST: '127.0.0.1',
  }
  const bin = path.join(root, 'packages/server/bin/tessera-server.js')
  const child: ChildProcess = spawn(process.execPath, [bin, 'serve'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const collect = (d: Buffer) => {
    output += d.toString()
  }
  child.stdout?.on('data', collect)
  child.stderr?.on('data', collect)
  const deadline = Date.now() + 60_000
  while (!/"address":"http/.test(output) && Date.now() < deadline && child.exitCode === null)
    await new Promise((r) => setTimeout(r, 100))
  const baseUrl = /"address":"(http:\/\/[^"]+)"/.exec(output)?.[1]
  if (!baseUrl) {
    child.kill('SIGKILL')
    throw new Error(`tessera serve did not start:\n${output}`)
  }
  return {
    baseUrl,
    adminPassword: /password: (\S+)/.exec(output)?.[1] ?? '',
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM')
        await once(child, 'exit')
      }
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * The packages of git ref `ref` in a temp directory, sharing this tree's node_modules, with its
 * console built: the code as it was, to measure against. Answers the copy's root.
 */
export function treeAt(ref: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-bench-ref-'))
  const archive = execFileSync('git', ['archive', ref, 'packages', 'package.json'], {
    cwd: ROOT,
    maxBuffer: 1 << 30,
  })
  execFileSync('tar', ['-x', '-C', dir], { input: archive })
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'))
  const build = spawnSync(
    process.execPath,
    [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'],
    {
      cwd: path.join(dir, 'packages/console'),
      stdio: 'inherit',
    },
  )
  if (build.status !== 0) throw new Error(`building the console of ${ref} failed`)
  return dir
}

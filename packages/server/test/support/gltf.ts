// Conversion test support: the Khronos glTF-Validator, and the real models that ship inside
// installed npm packages (the corpus: docs/conversion.md).
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

const require = createRequire(import.meta.url)

interface ValidatorMessage {
  code: string
  message: string
  severity: number
  pointer?: string
}
export interface ValidationReport {
  issues: { numErrors: number; numWarnings: number; messages: ValidatorMessage[] }
  info?: { extensionsUsed?: string[] }
}
interface GltfValidator {
  validateBytes(data: Uint8Array, options?: { maxIssues?: number; uri?: string }): Promise<ValidationReport>
}

/** The package ships no type declarations; this is the one function we use. */
const validator = require('gltf-validator') as GltfValidator

/** Validates a GLB with the Khronos validator and fails the test on any error (listing them). */
export async function assertValidGlb(glb: Uint8Array, label: string): Promise<ValidationReport> {
  const report = await validator.validateBytes(glb, { maxIssues: 50, uri: `${label}.glb` })
  const errors = report.issues.messages.filter((message) => message.severity === 0)
  assert.equal(
    report.issues.numErrors,
    0,
    `${label}: glTF-Validator errors:\n${errors.map((e) => `${e.code} ${e.pointer ?? ''} ${e.message}`).join('\n')}`,
  )
  return report
}

/** Absolute path of a file inside an installed package. */
export function packageFile(packageName: string, relativePath: string): string {
  return path.join(path.dirname(require.resolve(`${packageName}/package.json`)), relativePath)
}

/** The bytes of a file inside an installed package. */
export function readPackageFile(packageName: string, relativePath: string): Uint8Array {
  return new Uint8Array(readFileSync(packageFile(packageName, relativePath)))
}

/** A GLB from @pmndrs/assets, which ships them as base64 data-URI modules (`suzi`, `bunny`, `pmndrs`). */
export async function pmndrsGlb(name: 'suzi' | 'bunny' | 'pmndrs'): Promise<Uint8Array> {
  const module = (await import(`@pmndrs/assets/models/${name}.glb.js`)) as { default: string }
  const base64 = module.default.slice(module.default.indexOf(',') + 1)
  return new Uint8Array(Buffer.from(base64, 'base64'))
}

/** The JSON chunk of a GLB, for structural assertions. */
export function glbJson(glb: Uint8Array): GlbJson {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength)
  const length = view.getUint32(12, true)
  return JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + length))) as GlbJson
}

/** The bytes of the GLB's image `index` (images stored in buffer views of the BIN chunk). */
export function glbImage(glb: Uint8Array, index: number): Uint8Array {
  const json = glbJson(glb) as GlbJson & { bufferViews?: Array<{ byteOffset?: number; byteLength: number }> }
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength)
  const binStart = 20 + view.getUint32(12, true) + 8
  const bufferView = json.bufferViews?.[json.images?.[index]?.bufferView ?? -1]
  if (!bufferView) throw new Error(`GLB image ${index} is not in a buffer view`)
  const start = binStart + (bufferView.byteOffset ?? 0)
  return glb.subarray(start, start + bufferView.byteLength)
}

export interface GlbJson {
  extensionsUsed?: string[]
  extensionsRequired?: string[]
  scene?: number
  scenes?: Array<{ nodes?: number[] }>
  nodes?: Array<{ name?: string; children?: number[]; mesh?: number; extras?: Record<string, unknown> }>
  meshes?: Array<{ primitives: unknown[] }>
  images?: Array<{ mimeType?: string; bufferView?: number }>
  materials?: Array<{ name?: string }>
}

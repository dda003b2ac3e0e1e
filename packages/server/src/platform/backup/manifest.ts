// The backup's manifest (manifest.json): what the backup holds and how to check it.
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { type Dialect, isDialect } from '../db/index.ts'
import { PRIVATE_FILE_MODE } from '../file-modes.ts'

export const MANIFEST_FORMAT = 1
const MANIFEST_FILE = 'manifest.json'
export const SQLITE_FILE = 'tessera.db'
export const PG_DUMP_FILE = 'tessera.pgdump'
export const BLOB_DIR = 'blobs'

/** Tables counted in the manifest (a quick plausibility check after a restore). */
export const COUNTED_TABLES = [
  'accounts',
  'sessions',
  'files',
  'file_shares',
  'webhooks',
  'events',
  'deliveries',
  'delivery_attempts',
  'jobs',
  'scene_nodes',
  'scene_attributes',
  'annotations',
  'configurations',
] as const

export interface BlobEntry {
  key: string
  size: number
  sha256: string
}

/** A blob the snapshot refers to that could not be copied, and why. */
export interface MissingBlob {
  key: string
  reason: string
}

export interface Manifest {
  format: number
  /** The server's package version that wrote it. */
  version: string
  createdAt: string
  dialect: Dialect
  /** The newest migration applied in the snapshot. */
  migration: string
  /** PostgreSQL: the schema the dump holds. */
  schema?: string
  database: string
  counts: Record<string, number>
  blobs: BlobEntry[]
  missing: MissingBlob[]
}

export function writeManifest(dir: string, manifest: Manifest): void {
  writeFileSync(path.join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, {
    mode: PRIVATE_FILE_MODE,
  })
}

/** Reads and shape-checks a manifest; throws a message naming what is wrong. */
export function readManifest(dir: string): Manifest {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(path.join(dir, MANIFEST_FILE), 'utf8'))
  } catch (error) {
    throw new Error(`${dir} holds no readable ${MANIFEST_FILE}: ${(error as Error).message}`)
  }
  const m = parsed as Partial<Manifest>
  if (m.format !== MANIFEST_FORMAT) throw new Error(`unsupported backup format ${String(m.format)}`)
  if (
    !isDialect(m.dialect) ||
    typeof m.migration !== 'string' ||
    typeof m.database !== 'string' ||
    !Array.isArray(m.blobs) ||
    !m.blobs.every((b) => typeof b?.key === 'string' && typeof b.sha256 === 'string')
  ) {
    throw new Error(`${MANIFEST_FILE} is incomplete or damaged`)
  }
  return m as Manifest
}

/** The server's version, for the manifest (package.json beside src/ or dist/). */
export function serverVersion(): string {
  try {
    const file = new URL('../../../package.json', import.meta.url)
    return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? 'unknown'
  } catch {
    return 'unknown'
  }
}

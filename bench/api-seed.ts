// Data for bench/api.ts: converted-looking files written through the files and scene modules'
// own write paths (the conversion's storeConversionOutcome and replaceSceneTree), so that every
// listed record carries what a real one does: a ready state, roles, scene tree roots and names, an
// optimized asset and a thumbnail.
import { createHash } from 'node:crypto'
import { insertFile, storeConversionOutcome } from '../packages/server/src/modules/files/repository.ts'
import { replaceSceneTree, type SceneNode } from '../packages/server/src/modules/scene/index.ts'
import type { Db } from '../packages/server/src/platform/db/index.ts'
import { newId } from '../packages/server/src/platform/ids.ts'

export interface Seeded {
  /** A file of the root directory (10 files), with a scene tree. */
  fileId: string
  /** A node of that file's scene tree (the write case sets attributes on it). */
  nodeId: string
  /** The directory holding 100 files. */
  bigDirectory: string
}

/** A modest assembly: 3 sub-assemblies of 4 parts of 4 bodies (64 nodes). */
function sceneOf(fileId: string): SceneNode[] {
  const node = (path: string, name: string, children: SceneNode[] = []): SceneNode => ({
    id: createHash('sha256').update(`${fileId}/${path}`).digest('hex').slice(0, 16),
    name,
    children,
  })
  const bodies = (path: string) => [0, 1, 2, 3].map((b) => node(`${path}/${b}`, `Body ${b + 1}`))
  const parts = (path: string) =>
    [0, 1, 2, 3].map((p) => node(`${path}/${p}`, `Part ${p + 1}`, bodies(`${path}/${p}`)))
  const assemblies = [0, 1, 2].map((a) => node(`${a}`, `Sub-assembly ${a + 1}`, parts(`${a}`)))
  return [node('root', 'Gearbox housing', assemblies)]
}

async function convertedFile(db: Db, owner: { id: string; email: string }, parent: string, name: string) {
  const now = Date.now()
  const id = newId(now)
  const sha256 = createHash('sha256').update(id).digest('hex')
  await insertFile(db.kysely, {
    id,
    owner_id: owner.id,
    user_id: owner.id,
    parent,
    key: parent === '/' ? `/${name}` : `${parent}/${name}`,
    name,
    size: 1_482_113,
    sha256,
    state: 'converting',
    error: '',
    progress: 0,
    bucket: 'tessera',
    blob_key: `originals/${id}`,
    share_token: '',
    is_link: 0,
    allow_live_public_meetings: 0,
    roles: JSON.stringify([{ email: 'reviewer@example.com', role: 'viewer' }]),
    attributes: JSON.stringify({ project: 'Bench', revision: 'B' }),
    scene_tree_names: '[]',
    scene_tree_roots: '[]',
    favorited_by: JSON.stringify([owner.email]),
    type: 'file',
    created_at: now,
    updated_at: now,
    revision_date: now,
    version: 1,
    optimized_key: null,
    optimized_size: 0,
    optimized_sha256: '',
  })
  const roots = sceneOf(id)
  await db.kysely.transaction().execute(async (tx) => {
    await replaceSceneTree(tx, id, roots)
    await storeConversionOutcome(tx, id, {
      state: 'ready',
      error: '',
      roots,
      optimized: { key: `optimized/${id}.glb`, size: 402_331, sha256 },
      thumbnail: { key: `thumbnails/${id}.png`, size: 18_204, sha256 },
      now: Date.now(),
    })
  })
  return { id, nodeId: roots[0]?.children[0]?.id ?? '' }
}

export async function seed(db: Db, owner: { id: string; email: string }): Promise<Seeded> {
  let first: { id: string; nodeId: string } | undefined
  for (let i = 0; i < 10; i++) {
    const file = await convertedFile(db, owner, '/', `gearbox-${String(i).padStart(2, '0')}.step`)
    first ??= file
  }
  const bigDirectory = '/plant/line-3'
  for (let i = 0; i < 100; i++) {
    await convertedFile(db, owner, bigDirectory, `station-${String(i).padStart(3, '0')}.ifc`)
  }
  if (!first) throw new Error('nothing seeded')
  return { fileId: first.id, nodeId: first.nodeId, bigDirectory }
}

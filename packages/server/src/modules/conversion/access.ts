// Reading what a conversion produced: the optimized GLB and the scene tree, for anyone who may read
// the file, once its current revision is `ready`.
import type { AppContext } from '../../platform/context.ts'
import type { BlobDownload } from '../../platform/downloads.ts'
import { AppError } from '../../platform/errors.ts'
import { requireFileRead } from '../files/index.ts'
import { sceneTreeJson } from '../scene/index.ts'

async function readyFile(ctx: AppContext, accountId: string, fileId: string) {
  const { file } = await requireFileRead(ctx, accountId, fileId)
  if (file.state !== 'ready' || !file.optimized_key) {
    const why = file.state === 'error' ? `its conversion failed: ${file.error}` : `it is ${file.state}`
    throw new AppError('NOT_READY', `File ${fileId} has no optimized model: ${why}.`)
  }
  return { ...file, optimized_key: file.optimized_key }
}

export async function optimizedDownload(
  ctx: AppContext,
  accountId: string,
  fileId: string,
): Promise<BlobDownload> {
  const file = await readyFile(ctx, accountId, fileId)
  return {
    key: file.optimized_key,
    size: file.optimized_size,
    sha256: file.optimized_sha256,
    contentType: 'model/gltf-binary',
    fileName: `${file.name.replace(/\.[^.]*$/, '')}.glb`,
  }
}

/** The scene tree's root nodes as JSON text (kept per process by the asset's key: scene/tree-json.ts). */
export async function sceneTreeText(ctx: AppContext, accountId: string, fileId: string): Promise<string> {
  const file = await readyFile(ctx, accountId, fileId)
  return sceneTreeJson(ctx.db.kysely, fileId, file.optimized_key)
}

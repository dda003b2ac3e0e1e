// Files for tests of the resources that hang off a file (scene attributes, annotations,
// configurations): rows written straight into `files` and `file_shares`, so these tests depend only
// on the file access model, not on uploads. Plus a team around one file: its owner, an editor, a
// viewer and a stranger, each signed in.
import type { FastifyInstance } from 'fastify'
import { awaitRowChangesSeen, type Db } from '../../src/platform/db/index.ts'
import { newId } from '../../src/platform/ids.ts'
import { signedIn } from './api.ts'

/** What the rows are written through: a test's app, or a bench's context (bench/peers/live-seed.ts). */
interface HasDb {
  ctx: { db: Db }
}

export async function insertFileRow(
  app: HasDb,
  ownerId: string,
  fields: { name?: string; parent?: string; sceneTreeRoots?: string[] } = {},
): Promise<string> {
  const now = Date.now()
  const id = newId(now)
  const name = fields.name ?? `model-${id}.glb`
  const parent = fields.parent ?? '/'
  await app.ctx.db.kysely
    .insertInto('files')
    .values({
      id,
      owner_id: ownerId,
      user_id: ownerId,
      parent,
      key: parent === '/' ? `/${name}` : `${parent}/${name}`,
      name,
      size: 4,
      sha256: '0'.repeat(64),
      state: 'queued',
      error: '',
      progress: 0,
      bucket: 'test',
      blob_key: `blobs/${id}`,
      share_token: '',
      is_link: 0,
      allow_live_public_meetings: 0,
      roles: '[]',
      attributes: '{}',
      scene_tree_names: '[]',
      scene_tree_roots: JSON.stringify(fields.sceneTreeRoots ?? []),
      favorited_by: '[]',
      type: 'file',
      created_at: now,
      updated_at: now,
      revision_date: now,
      version: 0,
      optimized_key: null,
      optimized_size: 0,
      optimized_sha256: '',
    })
    .execute()
  await directWritesSeen(app.ctx.db)
  return id
}

export async function shareFileRow(
  app: HasDb,
  fileId: string,
  accountId: string,
  role: 'viewer' | 'editor',
): Promise<void> {
  await app.ctx.db.kysely
    .insertInto('file_shares')
    .values({ file_id: fileId, account_id: accountId, role, created_at: Date.now() })
    .execute()
  await directWritesSeen(app.ctx.db)
}

/**
 * After a test's own SQL on files, file_shares or accounts rows: waits, as a writing request does
 * before it answers, until every process's row-change feed has applied the change, so the next
 * request reads it (PostgreSQL keeps listings and file rows in memory; at once on SQLite). Without
 * it, a request sent right after the statement may be answered from memory before the notification
 * arrives — the rule for other processes' writes (docs/architecture.md, "Listings from memory").
 */
export function directWritesSeen(db: Db): Promise<void> {
  return awaitRowChangesSeen(db, {
    warn: (details, message) => {
      throw new Error(`${message}: ${JSON.stringify(details)}`)
    },
  })
}

export type Member = Awaited<ReturnType<typeof signedIn>>

export interface Team {
  fileId: string
  owner: Member
  editor: Member
  viewer: Member
  stranger: Member
}

/** A file with its owner, an editor, a viewer and a stranger (four sessions: mind the license pool). */
export async function team(app: FastifyInstance): Promise<Team> {
  const [owner, editor, viewer, stranger] = await Promise.all([
    signedIn(app, 'owner'),
    signedIn(app, 'editor'),
    signedIn(app, 'viewer'),
    signedIn(app, 'stranger'),
  ])
  const fileId = await insertFileRow(app, owner.account.id)
  await shareFileRow(app, fileId, editor.account.id, 'editor')
  await shareFileRow(app, fileId, viewer.account.id, 'viewer')
  return { fileId, owner, editor, viewer, stranger }
}

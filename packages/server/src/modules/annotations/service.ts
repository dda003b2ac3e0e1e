// Annotations: titled notes pinned to a file's scene, with their own access lists.
//
// Who may do what (also in the README):
// - The file role comes first: owner and editor may create, update and delete annotations; a viewer
//   only reads (403 on writes); anyone else gets 404 for the file and its annotations.
// - Within that, the annotation's author and the file's owner always have every right.
// - Everyone else is checked against the annotation's lists (e-mails or "*"; an empty list restricts
//   nothing, see platform/acl.ts): `readPermissions` gates seeing the annotation at all (hidden ones
//   are left out of listings and answer 404), `writePermissions` gates changing or deleting it, and
//   each `permissions` array gates one aspect: readTitle/writeTitle → `name`,
//   readDescription/writeDescription → `content`, readTargets/writeTargets → `targets`,
//   `delete` → deleting. A reader without a read aspect sees it blanked ("" or []). The discussion
//   arrays are stored and returned for the comment threads of clients; no field here carries a
//   discussion, so they gate nothing on this API.
// - Only the author and the file's owner may change the access lists themselves.
//
// Events go to the webhooks of the file's owner and of the accounts the file is shared with, but only
// of those who may read the whole annotation (title, description and targets) — before and after the
// change for annotation_updated — so no webhook learns what its owner may not see.
import { listAllows, normalizeAccessList } from '../../platform/acl.ts'
import type { AppContext } from '../../platform/context.ts'
import { type Executor, lockResource } from '../../platform/db/index.ts'
import type { AnnotationsTable } from '../../platform/db/schema.ts'
import { AppError } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import {
  emitItemEvent,
  type FileItemKind,
  type ItemViewer,
  itemViewer,
  loadItemForChange,
  requireFileAccess,
} from '../files/index.ts'
import {
  ANNOTATION_PERMISSION_KEYS,
  type AnnotationPermissionKey,
  type AnnotationPermissionsShape,
  type AnnotationRecordShape,
} from '../webhooks/index.ts'
import * as repo from './repository.ts'

export interface Caller {
  accountId: string
  email: string
}

type PermissionLists = Omit<AnnotationPermissionsShape, '_id'>

export interface AnnotationInput {
  name?: string
  content?: string
  type?: number
  color?: string
  cameraX?: number
  cameraY?: number
  cameraZ?: number
  targets?: unknown[]
  tags?: string[]
  readPermissions?: string[]
  writePermissions?: string[]
  permissions?: Partial<PermissionLists> & { _id?: string }
}

export const DEFAULT_COLOR = '#ffffff'

function emptyPermissions(): PermissionLists {
  return Object.fromEntries(ANNOTATION_PERMISSION_KEYS.map((key) => [key, []])) as unknown as PermissionLists
}

/** Stored permission lists merged with the given ones (normalised); `_id` is the server's. */
function mergePermissions(current: PermissionLists, given: AnnotationInput['permissions']): PermissionLists {
  const merged = { ...current }
  for (const key of ANNOTATION_PERMISSION_KEYS) {
    const list = given?.[key]
    if (list) merged[key] = normalizeAccessList(list)
  }
  return merged
}

export function toRecord(row: repo.AnnotationRow): AnnotationRecordShape {
  const lists = JSON.parse(row.permissions) as PermissionLists
  const permissions = { _id: row.permissions_id } as AnnotationPermissionsShape
  // Fixed key order: `_id`, then the nine arrays as the spec lists them.
  for (const key of ANNOTATION_PERMISSION_KEYS) permissions[key] = lists[key] ?? []
  return {
    _id: row.id,
    author: row.author_email,
    file: row.file_id,
    name: row.name,
    content: row.content,
    type: row.type,
    color: row.color,
    cameraX: row.camera_x,
    cameraY: row.camera_y,
    cameraZ: row.camera_z,
    date: row.created_at,
    lastUpdate: row.updated_at,
    targets: JSON.parse(row.targets) as unknown[],
    tags: JSON.parse(row.tags) as string[],
    readPermissions: JSON.parse(row.read_permissions) as string[],
    writePermissions: JSON.parse(row.write_permissions) as string[],
    permissions,
    __v: row.version,
  }
}

/** The record as annotation_updated shows it: `permissions` wrapped in an array (the spec's quirk). */
function inUpdate(record: AnnotationRecordShape) {
  return { ...record, permissions: [record.permissions] }
}

/** What `who` may do with the annotation by its lists (the file role is checked separately). */
function rightsOf(record: AnnotationRecordShape, authorId: string, who: ItemViewer) {
  const privileged = who.isOwner || who.accountId === authorId
  const allows = (list: readonly string[]) => privileged || listAllows(list, who.email)
  const aspect = (key: AnnotationPermissionKey) => allows(record.permissions[key])
  const read = allows(record.readPermissions)
  return {
    privileged,
    read,
    write: read && allows(record.writePermissions),
    aspect,
    readsAll: read && aspect('readTitle') && aspect('readDescription') && aspect('readTargets'),
  }
}

type Rights = ReturnType<typeof rightsOf>

/** Blanks the aspects the caller may not read. */
function redact(record: AnnotationRecordShape, rights: Rights): AnnotationRecordShape {
  return {
    ...record,
    name: rights.aspect('readTitle') ? record.name : '',
    content: rights.aspect('readDescription') ? record.content : '',
    targets: rights.aspect('readTargets') ? record.targets : [],
  }
}

const annotations: FileItemKind<repo.AnnotationRow, AnnotationRecordShape> = {
  noun: 'annotation',
  find: repo.findAnnotation,
  toItem: toRecord,
  visible: (record, authorId, who) => rightsOf(record, authorId, who).read,
  hears: (record, authorId, who) => rightsOf(record, authorId, who).readsAll,
}

export async function createAnnotation(
  ctx: AppContext,
  caller: Caller,
  fileId: string,
  input: AnnotationInput & { name: string },
): Promise<AnnotationRecordShape> {
  return ctx.db.kysely.transaction().execute(async (tx) => {
    const access = await requireFileAccess(tx, caller.accountId, fileId, 'write')
    const now = Date.now()
    const id = newId(now)
    await repo.insertAnnotation(tx, {
      id,
      file_id: fileId,
      author_id: caller.accountId,
      name: input.name,
      content: input.content ?? '',
      type: input.type ?? 0,
      color: input.color ?? DEFAULT_COLOR,
      camera_x: input.cameraX ?? 0,
      camera_y: input.cameraY ?? 0,
      camera_z: input.cameraZ ?? 0,
      targets: JSON.stringify(input.targets ?? []),
      tags: JSON.stringify(input.tags ?? []),
      read_permissions: JSON.stringify(normalizeAccessList(input.readPermissions ?? [])),
      write_permissions: JSON.stringify(normalizeAccessList(input.writePermissions ?? [])),
      permissions_id: newId(now),
      permissions: JSON.stringify(mergePermissions(emptyPermissions(), input.permissions)),
      created_at: now,
      updated_at: now,
      version: 0,
    })
    const row = await repo.findAnnotation(tx, id)
    if (!row) throw new Error('annotation vanished after insert')
    const record = toRecord(row)
    await emitItemEvent(ctx, tx, annotations, {
      event: 'annotation_created',
      access,
      row,
      versions: [record],
      data: record,
    })
    return record
  })
}

/** The annotation to change, with the caller's rights on it (see loadItemForChange). */
async function loadVisible(tx: Executor, caller: Caller, id: string) {
  const { row, access, item: record } = await loadItemForChange(tx, annotations, caller, id)
  return { row, access, record, rights: rightsOf(record, row.author_id, itemViewer(caller, access)) }
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

export async function updateAnnotation(
  ctx: AppContext,
  caller: Caller,
  id: string,
  input: AnnotationInput & { __v?: number },
): Promise<AnnotationRecordShape> {
  return ctx.db.kysely.transaction().execute(async (tx) => {
    // Serializes writers of one annotation so that `old` in the event is what `new` replaced.
    await lockResource(ctx.db, tx, `tessera.annotation.${id}`)
    const { row, access, record, rights } = await loadVisible(tx, caller, id)
    if (input.__v !== undefined && input.__v !== record.__v) {
      throw new AppError('CONFLICT', `The annotation is at revision ${record.__v}, not ${input.__v}.`)
    }
    const next = {
      name: input.name ?? record.name,
      content: input.content ?? record.content,
      type: input.type ?? record.type,
      color: input.color ?? record.color,
      cameraX: input.cameraX ?? record.cameraX,
      cameraY: input.cameraY ?? record.cameraY,
      cameraZ: input.cameraZ ?? record.cameraZ,
      targets: input.targets ?? record.targets,
      tags: input.tags ?? record.tags,
      readPermissions: input.readPermissions
        ? normalizeAccessList(input.readPermissions)
        : record.readPermissions,
      writePermissions: input.writePermissions
        ? normalizeAccessList(input.writePermissions)
        : record.writePermissions,
    }
    const { _id: _permissionsId, ...currentLists } = record.permissions
    const permissions = mergePermissions(currentLists, input.permissions)
    const changed = (Object.keys(next) as (keyof typeof next)[]).filter(
      (key) => !sameJson(next[key], record[key]),
    )
    const permissionsChanged = !sameJson(permissions, currentLists)
    // Sending the record back unchanged is not a change: no new revision, no event.
    if (changed.length === 0 && !permissionsChanged) return redact(record, rights)

    if (!rights.write)
      throw new AppError('FORBIDDEN', "The annotation's writePermissions do not include you.")
    const aspectOf: Partial<Record<keyof typeof next, AnnotationPermissionKey>> = {
      name: 'writeTitle',
      content: 'writeDescription',
      targets: 'writeTargets',
    }
    for (const key of changed) {
      const aspect = aspectOf[key]
      if (aspect && !rights.aspect(aspect)) {
        throw new AppError('FORBIDDEN', `The annotation's ${aspect} permissions do not include you.`)
      }
    }
    const listsChanged =
      permissionsChanged || changed.includes('readPermissions') || changed.includes('writePermissions')
    if (listsChanged && !rights.privileged) {
      throw new AppError(
        'FORBIDDEN',
        "Only the annotation's author and the file's owner may change its permissions.",
      )
    }

    const now = Math.max(Date.now(), record.lastUpdate)
    const changes: Partial<AnnotationsTable> = {
      name: next.name,
      content: next.content,
      type: next.type,
      color: next.color,
      camera_x: next.cameraX,
      camera_y: next.cameraY,
      camera_z: next.cameraZ,
      targets: JSON.stringify(next.targets),
      tags: JSON.stringify(next.tags),
      read_permissions: JSON.stringify(next.readPermissions),
      write_permissions: JSON.stringify(next.writePermissions),
      permissions: JSON.stringify(permissions),
      updated_at: now,
    }
    if (!(await repo.updateAnnotation(tx, id, record.__v, changes))) {
      throw new AppError('CONFLICT', 'The annotation changed meanwhile; read it again.')
    }
    const updatedRow = await repo.findAnnotation(tx, id)
    if (!updatedRow) throw new Error('annotation vanished after update')
    const updated = toRecord(updatedRow)
    await emitItemEvent(ctx, tx, annotations, {
      event: 'annotation_updated',
      access,
      row,
      versions: [record, updated],
      data: {
        old: inUpdate(record),
        new: inUpdate(updated),
      },
    })
    return redact(updated, rightsOf(updated, row.author_id, itemViewer(caller, access)))
  })
}

export async function deleteAnnotation(
  ctx: AppContext,
  caller: Caller,
  id: string,
): Promise<AnnotationRecordShape> {
  return ctx.db.kysely.transaction().execute(async (tx) => {
    await lockResource(ctx.db, tx, `tessera.annotation.${id}`)
    const { row, access, record, rights } = await loadVisible(tx, caller, id)
    if (!rights.write)
      throw new AppError('FORBIDDEN', "The annotation's writePermissions do not include you.")
    if (!rights.aspect('delete')) {
      throw new AppError('FORBIDDEN', "The annotation's delete permissions do not include you.")
    }
    await repo.deleteAnnotation(tx, id)
    await emitItemEvent(ctx, tx, annotations, {
      event: 'annotation_removed',
      access,
      row,
      versions: [record],
      data: record,
    })
    return redact(record, rights)
  })
}

export async function listAnnotations(
  ctx: AppContext,
  caller: Caller,
  fileId: string,
): Promise<AnnotationRecordShape[]> {
  const db = ctx.db.kysely
  const access = await requireFileAccess(db, caller.accountId, fileId, 'read')
  const who = itemViewer(caller, access)
  const out: AnnotationRecordShape[] = []
  for (const row of await repo.listAnnotations(db, fileId)) {
    const record = toRecord(row)
    const rights = rightsOf(record, row.author_id, who)
    if (rights.read) out.push(redact(record, rights))
  }
  return out
}

// Annotations: titled notes pinned to a file's scene, with their own access lists.
//
// Who may do what (also in the README):
// - The file role comes first: owner and editor may create, update and delete annotations; a viewer
//   only reads (403 on writes); anyone else gets 404 for the file and its annotations.
// - Within that, the annotation's author and the file's owner always have every right.
// - Everyone else is checked against the annotation's lists (e-mails or "*"; an empty list restricts
//   nothing, see file-items/acl.ts): `readPermissions` gates seeing the annotation at all (hidden ones
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

import {
  ANNOTATION_PERMISSION_KEYS,
  type AnnotationPermissionKey,
  type AnnotationPermissionsShape,
  type AnnotationRecordShape,
} from '../../contract/index.ts'
import type { AppContext } from '../../platform/context.ts'
import type { Tx } from '../../platform/db/index.ts'
import { AppError } from '../../platform/errors.ts'
import type { InCommit } from '../../platform/idempotency.ts'
import { newId } from '../../platform/ids.ts'
import { accessLists, FileItems, type ItemCaller, normalizeAccessList } from '../file-items/index.ts'
import * as repo from './repository.ts'

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

const DEFAULT_COLOR = '#ffffff'

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

function toRecord(row: repo.AnnotationRow): AnnotationRecordShape {
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
    ...accessLists.fromRow(row),
    permissions,
    __v: row.version,
  }
}

/** The record as annotation_updated shows it: `permissions` wrapped in an array (the spec's quirk). */
function inUpdate(record: AnnotationRecordShape) {
  return { ...record, permissions: [record.permissions] }
}

/** What `who` may do with the annotation by its lists (the file role is checked separately). */
function rightsOf(record: AnnotationRecordShape, authorId: string, who: accessLists.ItemViewer) {
  const rights = accessLists.rights(record, authorId, who)
  const aspect = (key: AnnotationPermissionKey) => rights.allows(record.permissions[key])
  // An event shows the title, description and targets.
  const hears = rights.read && aspect('readTitle') && aspect('readDescription') && aspect('readTargets')
  return { ...rights, aspect, hears }
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

/** The annotations of files: the shared skeleton (modules/file-items) with this module's parts. */
export const annotations = new FileItems({
  noun: 'annotation',
  rows: repo,
  caps: (config) => ({
    maxItems: config.fileMaxAnnotations,
    itemsVariable: 'TESSERA_FILE_MAX_ANNOTATIONS',
    maxBytes: config.fileMaxAnnotationBytes,
    bytesVariable: 'TESSERA_FILE_MAX_ANNOTATION_BYTES',
  }),
  toItem: toRecord,
  rightsOf,
  shown: redact,
  inEvent: { created: (record) => record, updated: inUpdate },
  authorizeDelete(rights) {
    if (!rights.aspect('delete')) {
      throw new AppError('FORBIDDEN', "The annotation's delete permissions do not include you.")
    }
  },
})

/** Dates an imported record keeps from where it came from (modules/bcf); else both are now. */
export interface RecordDates {
  date: number
  lastUpdate: number
}

/** The row of a new annotation of `caller` on `fileId`. */
function newAnnotationRow(caller: ItemCaller, fileId: string, input: AnnotationInput, dates?: RecordDates) {
  return (id: string, now: number) => ({
    id,
    file_id: fileId,
    author_id: caller.accountId,
    name: input.name ?? '',
    content: input.content ?? '',
    type: input.type ?? 0,
    color: input.color ?? DEFAULT_COLOR,
    camera_x: input.cameraX ?? 0,
    camera_y: input.cameraY ?? 0,
    camera_z: input.cameraZ ?? 0,
    targets: JSON.stringify(input.targets ?? []),
    tags: JSON.stringify(input.tags ?? []),
    ...accessLists.toColumns(accessLists.next(input)),
    permissions_id: newId(now),
    permissions: JSON.stringify(mergePermissions(emptyPermissions(), input.permissions)),
    created_at: dates?.date ?? now,
    updated_at: dates?.lastUpdate ?? now,
    version: 0,
  })
}

/** `inCommit`: called last in the transaction with the created record (Idempotency-Key). */
export function createAnnotation(
  ctx: AppContext,
  caller: ItemCaller,
  fileId: string,
  input: AnnotationInput & { name: string },
  inCommit?: InCommit<AnnotationRecordShape>,
): Promise<AnnotationRecordShape> {
  return annotations.create(ctx, caller, fileId, newAnnotationRow(caller, fileId, input), inCommit)
}

/** Creates an annotation inside the transaction `tx` (a BCF import), with the dates it came with. */
export function createAnnotationIn(
  ctx: AppContext,
  tx: Tx,
  caller: ItemCaller,
  fileId: string,
  input: AnnotationInput & { name: string },
  dates: RecordDates,
): Promise<AnnotationRecordShape> {
  return annotations.createIn(ctx, tx, caller, fileId, newAnnotationRow(caller, fileId, input, dates))
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** The fields of the record an update sets: given ones, else the stored ones. */
function nextFields(record: AnnotationRecordShape, input: AnnotationInput) {
  return {
    name: input.name ?? record.name,
    content: input.content ?? record.content,
    type: input.type ?? record.type,
    color: input.color ?? record.color,
    cameraX: input.cameraX ?? record.cameraX,
    cameraY: input.cameraY ?? record.cameraY,
    cameraZ: input.cameraZ ?? record.cameraZ,
    targets: input.targets ?? record.targets,
    tags: input.tags ?? record.tags,
    ...accessLists.next(input, record),
  }
}

type Fields = ReturnType<typeof nextFields>

/** The aspect list that gates changing a field (others need writePermissions only). */
const WRITE_ASPECT: Partial<Record<keyof Fields, AnnotationPermissionKey>> = {
  name: 'writeTitle',
  content: 'writeDescription',
  targets: 'writeTargets',
}

/** The update `input` asks of the stored annotation. */
function planUpdate(record: AnnotationRecordShape, input: AnnotationInput) {
  const next = nextFields(record, input)
  const { _id: _permissionsId, ...currentLists } = record.permissions
  const permissions = mergePermissions(currentLists, input.permissions)
  const changed = (Object.keys(next) as (keyof Fields)[]).filter((key) => !sameJson(next[key], record[key]))
  const permissionsChanged = !sameJson(permissions, currentLists)
  return {
    unchanged: changed.length === 0 && !permissionsChanged,
    listsChanged:
      permissionsChanged || changed.includes('readPermissions') || changed.includes('writePermissions'),
    authorize(rights: Rights) {
      for (const key of changed) {
        const aspect = WRITE_ASPECT[key]
        if (aspect && !rights.aspect(aspect)) {
          throw new AppError('FORBIDDEN', `The annotation's ${aspect} permissions do not include you.`)
        }
      }
    },
    columns: () => ({
      name: next.name,
      content: next.content,
      type: next.type,
      color: next.color,
      camera_x: next.cameraX,
      camera_y: next.cameraY,
      camera_z: next.cameraZ,
      targets: JSON.stringify(next.targets),
      tags: JSON.stringify(next.tags),
      ...accessLists.toColumns(next),
      permissions: JSON.stringify(permissions),
      updated_at: Math.max(Date.now(), record.lastUpdate),
    }),
  }
}

export function updateAnnotation(
  ctx: AppContext,
  caller: ItemCaller,
  id: string,
  input: AnnotationInput & { __v?: number },
): Promise<AnnotationRecordShape> {
  return annotations.update(ctx, caller, id, {
    version: input.__v,
    plan: (record) => planUpdate(record, input),
  })
}

// Configurations: saved viewer states of a file (camera, environment, layers, clipping, …).
//
// Who may do what: the file role first (owner and editor write, viewer reads, anyone else 404), then
// the configuration's access lists exactly like an annotation's (platform/acl.ts): its author and the
// file's owner always have every right; others need `readPermissions` to see it (else it is left out
// of listings and answers 404) and `writePermissions` to change or delete it (else 403). Only the
// author and the file's owner may change the lists themselves.
//
// Record shape, from the spec: `lastModificationDate` is absent and `lastModificationAuthor` null
// until the first update; the events show no `renderMode` except configuration_removed, while the
// HTTP answers always carry it. Events go to the webhooks of the file's owner and of the accounts the
// file is shared with who may read the configuration (before and after, for an update).
import type { Static } from 'typebox'
import { listAllows, normalizeAccessList } from '../../platform/acl.ts'
import type { AppContext } from '../../platform/context.ts'
import { type Executor, lockResource } from '../../platform/db/index.ts'
import type { ConfigurationsTable } from '../../platform/db/schema.ts'
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
  type ConfigurationRecordShape,
  type ConfigurationSettings,
  defaultConfigurationSettings,
} from '../webhooks/index.ts'
import * as repo from './repository.ts'
import type { SaveConfigurationBody } from './schemas.ts'

export interface Caller {
  accountId: string
  email: string
}

export type SaveInput = Static<typeof SaveConfigurationBody>

type Settings = ConfigurationSettings

export const DEFAULT_NAME = 'Untitled'

const defaultSettings = (): Settings => defaultConfigurationSettings(newId)

const SETTINGS_KEYS = Object.keys(defaultSettings()) as (keyof Settings)[]

/** The stored settings with the given fields applied (transparency merges; its `_id` stays). */
function applySettings(current: Settings, input: SaveInput): Settings {
  const next: Record<string, unknown> = { ...current }
  for (const key of SETTINGS_KEYS) {
    if (key === 'transparencyEffectParameters') continue
    if (input[key] !== undefined) next[key] = input[key]
  }
  next.transparencyEffectParameters = {
    alphaCoefficient:
      input.transparencyEffectParameters?.alphaCoefficient ??
      current.transparencyEffectParameters.alphaCoefficient,
    _id: current.transparencyEffectParameters._id,
  }
  return next as Settings
}

export function toRecord(row: repo.ConfigurationRow): ConfigurationRecordShape {
  // Defaults first: a field added to the record later gets its default in rows stored before.
  const s: Settings = { ...defaultSettings(), ...(JSON.parse(row.settings) as Partial<Settings>) }
  return {
    _id: row.id,
    file: row.file_id,
    name: row.name,
    author: row.author_email,
    lastModificationAuthor: row.last_modification_author_email,
    lockedBy: row.locked_by,
    lastActivationDate: new Date(row.last_activation_date).toISOString(),
    date: row.created_at,
    ...(row.last_modification_date === null ? {} : { lastModificationDate: row.last_modification_date }),
    disableCamera: s.disableCamera,
    cameraPosition: s.cameraPosition,
    cameraType: s.cameraType,
    environmentFile: s.environmentFile,
    environmentBrightness: s.environmentBrightness,
    environmentOrientation: s.environmentOrientation,
    layersEnabled: s.layersEnabled,
    enabledLayers: s.enabledLayers,
    behaviorsEnabled: s.behaviorsEnabled,
    enabledBehaviors: s.enabledBehaviors,
    enabledEffects: s.enabledEffects,
    transparencyEffectParameters: s.transparencyEffectParameters,
    explodedViewDistance: s.explodedViewDistance,
    explodedViewEnabled: s.explodedViewEnabled,
    environmentEnabled: s.environmentEnabled,
    skyboxEnabled: s.skyboxEnabled,
    iblEnabled: s.iblEnabled,
    upVector: s.upVector,
    zNear: s.zNear,
    cameraFoVIndex: s.cameraFoVIndex,
    activeOnStart: s.activeOnStart,
    modifiersEnabled: s.modifiersEnabled,
    modifiers: s.modifiers,
    sceneEnabled: s.sceneEnabled,
    rememberSelection: s.rememberSelection,
    sceneTree: s.sceneTree,
    selectedNodes: s.selectedNodes,
    autosaveCameraPosition: s.autosaveCameraPosition,
    collaborationEnabled: s.collaborationEnabled,
    collaborativeAvatarsEnabled: s.collaborativeAvatarsEnabled,
    collaborativeSelectionEnabled: s.collaborativeSelectionEnabled,
    enabledClippingPlanes: s.enabledClippingPlanes,
    clippingPlanesEnabled: s.clippingPlanesEnabled,
    enabledQuotations: s.enabledQuotations,
    quotationsEnabled: s.quotationsEnabled,
    readPermissions: JSON.parse(row.read_permissions) as string[],
    writePermissions: JSON.parse(row.write_permissions) as string[],
    renderMode: s.renderMode,
    __v: row.version,
  }
}

function settingsOf(record: ConfigurationRecordShape): Settings {
  return Object.fromEntries(SETTINGS_KEYS.map((key) => [key, record[key]])) as unknown as Settings
}

/** The record as configuration_created and configuration_updated show it: without `renderMode`. */
function inEvent(record: ConfigurationRecordShape) {
  const { renderMode: _renderMode, ...rest } = record
  return rest
}

function rightsOf(record: ConfigurationRecordShape, authorId: string, who: ItemViewer) {
  const privileged = who.isOwner || who.accountId === authorId
  const read = privileged || listAllows(record.readPermissions, who.email)
  return { privileged, read, write: read && (privileged || listAllows(record.writePermissions, who.email)) }
}

const configurations: FileItemKind<repo.ConfigurationRow, ConfigurationRecordShape> = {
  noun: 'configuration',
  find: repo.findConfiguration,
  toItem: toRecord,
  visible: (record, authorId, who) => rightsOf(record, authorId, who).read,
  hears: (record, authorId, who) => rightsOf(record, authorId, who).read,
}

export async function saveConfiguration(
  ctx: AppContext,
  caller: Caller,
  input: SaveInput,
): Promise<ConfigurationRecordShape> {
  if (input._id !== undefined) return updateConfiguration(ctx, caller, input._id, input)
  if (input.file === undefined) {
    throw new AppError(
      'VALIDATION_FAILED',
      'body: give the file to create a configuration for, or the _id to update.',
    )
  }
  if (input.__v !== undefined)
    throw new AppError('VALIDATION_FAILED', 'body: __v applies to updates (with _id) only.')
  const fileId = input.file
  return ctx.db.kysely.transaction().execute(async (tx) => {
    const access = await requireFileAccess(tx, caller.accountId, fileId, 'write')
    const now = Date.now()
    const id = newId(now)
    const row: ConfigurationsTable = {
      id,
      file_id: fileId,
      author_id: caller.accountId,
      name: input.name ?? DEFAULT_NAME,
      last_modification_author_id: null,
      last_modification_date: null,
      last_activation_date: input.lastActivationDate ? Date.parse(input.lastActivationDate) : now,
      locked_by: input.lockedBy ?? null,
      read_permissions: JSON.stringify(normalizeAccessList(input.readPermissions ?? [])),
      write_permissions: JSON.stringify(normalizeAccessList(input.writePermissions ?? [])),
      settings: JSON.stringify(applySettings(defaultSettings(), input)),
      created_at: now,
      version: 0,
    }
    await repo.insertConfiguration(tx, row)
    const stored = await repo.findConfiguration(tx, id)
    if (!stored) throw new Error('configuration vanished after insert')
    const record = toRecord(stored)
    await emitItemEvent(ctx, tx, configurations, {
      event: 'configuration_created',
      access,
      row: stored,
      versions: [record],
      data: inEvent(record),
    })
    return record
  })
}

/** The configuration to change, with the caller's rights on it (see loadItemForChange). */
async function loadWritable(tx: Executor, caller: Caller, id: string) {
  const { row, access, item: record } = await loadItemForChange(tx, configurations, caller, id)
  return { row, access, record, rights: rightsOf(record, row.author_id, itemViewer(caller, access)) }
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

async function updateConfiguration(
  ctx: AppContext,
  caller: Caller,
  id: string,
  input: SaveInput,
): Promise<ConfigurationRecordShape> {
  return ctx.db.kysely.transaction().execute(async (tx) => {
    // Serializes writers of one configuration so that `old` in the event is what `new` replaced.
    await lockResource(ctx.db, tx, `tessera.configuration.${id}`)
    const { row, access, record, rights } = await loadWritable(tx, caller, id)
    if (input.file !== undefined && input.file !== record.file) {
      throw new AppError('VALIDATION_FAILED', 'body: a configuration cannot move to another file.')
    }
    if (input.__v !== undefined && input.__v !== record.__v) {
      throw new AppError('CONFLICT', `The configuration is at revision ${record.__v}, not ${input.__v}.`)
    }
    const settings = applySettings(settingsOf(record), input)
    const next = {
      name: input.name ?? record.name,
      lockedBy: input.lockedBy === undefined ? record.lockedBy : input.lockedBy,
      lastActivationDate: input.lastActivationDate
        ? new Date(Date.parse(input.lastActivationDate)).toISOString()
        : record.lastActivationDate,
      readPermissions: input.readPermissions
        ? normalizeAccessList(input.readPermissions)
        : record.readPermissions,
      writePermissions: input.writePermissions
        ? normalizeAccessList(input.writePermissions)
        : record.writePermissions,
    }
    const changed = (Object.keys(next) as (keyof typeof next)[]).filter(
      (key) => !sameJson(next[key], record[key]),
    )
    const settingsChanged = !sameJson(settings, settingsOf(record))
    // Sending the record back unchanged is not a change: no new revision, no event.
    if (changed.length === 0 && !settingsChanged) return record

    if (!rights.write)
      throw new AppError('FORBIDDEN', "The configuration's writePermissions do not include you.")
    if ((changed.includes('readPermissions') || changed.includes('writePermissions')) && !rights.privileged) {
      throw new AppError(
        'FORBIDDEN',
        "Only the configuration's author and the file's owner may change its permissions.",
      )
    }
    const now = Math.max(Date.now(), record.lastModificationDate ?? record.date)
    const updatedOk = await repo.updateConfiguration(tx, id, record.__v, {
      name: next.name,
      locked_by: next.lockedBy,
      last_activation_date: Date.parse(next.lastActivationDate),
      read_permissions: JSON.stringify(next.readPermissions),
      write_permissions: JSON.stringify(next.writePermissions),
      settings: JSON.stringify(settings),
      last_modification_author_id: caller.accountId,
      last_modification_date: now,
    })
    if (!updatedOk) throw new AppError('CONFLICT', 'The configuration changed meanwhile; read it again.')
    const stored = await repo.findConfiguration(tx, id)
    if (!stored) throw new Error('configuration vanished after update')
    const updated = toRecord(stored)
    await emitItemEvent(ctx, tx, configurations, {
      event: 'configuration_updated',
      access,
      row,
      versions: [record, updated],
      data: {
        old: inEvent(record),
        new: inEvent(updated),
      },
    })
    return updated
  })
}

export async function deleteConfiguration(
  ctx: AppContext,
  caller: Caller,
  id: string,
): Promise<ConfigurationRecordShape> {
  return ctx.db.kysely.transaction().execute(async (tx) => {
    await lockResource(ctx.db, tx, `tessera.configuration.${id}`)
    const { row, access, record, rights } = await loadWritable(tx, caller, id)
    if (!rights.write)
      throw new AppError('FORBIDDEN', "The configuration's writePermissions do not include you.")
    await repo.deleteConfiguration(tx, id)
    await emitItemEvent(ctx, tx, configurations, {
      event: 'configuration_removed',
      access,
      row,
      versions: [record],
      data: record,
    })
    return record
  })
}

export async function listConfigurations(
  ctx: AppContext,
  caller: Caller,
  fileId: string,
): Promise<ConfigurationRecordShape[]> {
  const db = ctx.db.kysely
  const access = await requireFileAccess(db, caller.accountId, fileId, 'read')
  const who = itemViewer(caller, access)
  return (await repo.listConfigurations(db, fileId))
    .filter((row) => rightsOf(toRecord(row), row.author_id, who).read)
    .map(toRecord)
}

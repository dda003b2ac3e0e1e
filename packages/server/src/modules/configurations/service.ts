// Configurations: saved viewer states of a file (camera, environment, layers, clipping, …).
//
// Who may do what: the file role first (owner and editor write, viewer reads, anyone else 404), then
// the configuration's access lists exactly like an annotation's (file-items/acl.ts): its author and the
// file's owner always have every right; others need `readPermissions` to see it (else it is left out
// of listings and answers 404) and `writePermissions` to change or delete it (else 403). Only the
// author and the file's owner may change the lists themselves.
//
// Locked views (locks.ts): while another account holds a configuration's lock, updates and deletes
// are 409 CONFIGURATION_LOCKED.
//
// Record shape, from the spec: `lastModificationDate` is absent and `lastModificationAuthor` null
// until the first update; the events show no `renderMode` except configuration_removed, while the
// HTTP answers always carry it. Events go to the webhooks of the file's owner and of the accounts the
// file is shared with who may read the configuration (before and after, for an update).
import type { Static } from 'typebox'
import {
  type ConfigurationRecordShape,
  type ConfigurationSettings,
  defaultConfigurationSettings,
} from '../../contract/index.ts'
import type { AppContext } from '../../platform/context.ts'
import type { Tx } from '../../platform/db/index.ts'
import { AppError } from '../../platform/errors.ts'
import type { InCommit } from '../../platform/idempotency.ts'
import { newId } from '../../platform/ids.ts'
import { accessLists, FileItems, type ItemCaller } from '../file-items/index.ts'
import { refuseLockedByOther } from './locks.ts'
import * as repo from './repository.ts'
import type { SaveConfigurationBody } from './schemas.ts'

export type SaveInput = Static<typeof SaveConfigurationBody>

type Settings = ConfigurationSettings

const DEFAULT_NAME = 'Untitled'

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

function toRecord(row: repo.ConfigurationRow): ConfigurationRecordShape {
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
    ...accessLists.fromRow(row),
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

function rightsOf(record: ConfigurationRecordShape, authorId: string, who: accessLists.ItemViewer) {
  const rights = accessLists.rights(record, authorId, who)
  return { ...rights, hears: rights.read }
}

/** The configurations of files: the shared skeleton (modules/file-items) with this module's parts. */
export const configurations = new FileItems({
  noun: 'configuration',
  rows: repo,
  caps: (config) => ({
    maxItems: config.fileMaxConfigurations,
    itemsVariable: 'TESSERA_FILE_MAX_CONFIGURATIONS',
    maxBytes: config.fileMaxConfigurationBytes,
    bytesVariable: 'TESSERA_FILE_MAX_CONFIGURATION_BYTES',
  }),
  toItem: toRecord,
  rightsOf,
  inEvent: { created: inEvent, updated: inEvent },
  refuseRemove: refuseLockedByOther,
})

/** `inCommit`: called last in the transaction with the saved record (Idempotency-Key). */
export async function saveConfiguration(
  ctx: AppContext,
  caller: ItemCaller,
  input: SaveInput,
  inCommit?: InCommit<ConfigurationRecordShape>,
): Promise<ConfigurationRecordShape> {
  if (input._id !== undefined) {
    const change = {
      version: input.__v,
      check: (record: ConfigurationRecordShape) => refuseMove(record, input),
      plan: (record: ConfigurationRecordShape, row: repo.ConfigurationRow) =>
        planUpdate(record, row, caller, input),
    }
    return configurations.update(ctx, caller, input._id, change, inCommit)
  }
  if (input.file === undefined) {
    throw new AppError(
      'VALIDATION_FAILED',
      'body: give the file to create a configuration for, or the _id to update.',
    )
  }
  if (input.__v !== undefined)
    throw new AppError('VALIDATION_FAILED', 'body: __v applies to updates (with _id) only.')
  return configurations.create(
    ctx,
    caller,
    input.file,
    newConfigurationRow(caller, input.file, input),
    inCommit,
  )
}

/** The row of a new configuration of `caller` on `fileId`; `date` when it keeps an earlier one. */
function newConfigurationRow(caller: ItemCaller, fileId: string, input: SaveInput, date?: number) {
  return (id: string, now: number) => ({
    id,
    file_id: fileId,
    author_id: caller.accountId,
    name: input.name ?? DEFAULT_NAME,
    last_modification_author_id: null,
    last_modification_date: null,
    last_activation_date: input.lastActivationDate ? Date.parse(input.lastActivationDate) : now,
    // `lockedBy` is the lock calls' (locks.ts): a value sent here is ignored.
    locked_by: null,
    locked_by_id: null,
    ...accessLists.toColumns(accessLists.next(input)),
    settings: JSON.stringify(applySettings(defaultSettings(), input)),
    created_at: date ?? now,
    version: 0,
  })
}

/** Creates a configuration inside the transaction `tx` (a BCF import), dated `date`. */
export function createConfigurationIn(
  ctx: AppContext,
  tx: Tx,
  caller: ItemCaller,
  fileId: string,
  input: SaveInput,
  date: number,
): Promise<ConfigurationRecordShape> {
  return configurations.createIn(ctx, tx, caller, fileId, newConfigurationRow(caller, fileId, input, date))
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

function refuseMove(record: ConfigurationRecordShape, input: SaveInput): void {
  if (input.file !== undefined && input.file !== record.file) {
    throw new AppError('VALIDATION_FAILED', 'body: a configuration cannot move to another file.')
  }
}

/**
 * The update `input` asks of the stored configuration. `lockedBy` is not among it: only the lock
 * calls set it (locks.ts), so a record read and sent back whole still saves.
 */
function planUpdate(
  record: ConfigurationRecordShape,
  row: repo.ConfigurationRow,
  caller: ItemCaller,
  input: SaveInput,
) {
  const settings = applySettings(settingsOf(record), input)
  const next = {
    name: input.name ?? record.name,
    lastActivationDate: input.lastActivationDate
      ? new Date(Date.parse(input.lastActivationDate)).toISOString()
      : record.lastActivationDate,
    ...accessLists.next(input, record),
  }
  const changed = (Object.keys(next) as (keyof typeof next)[]).filter(
    (key) => !sameJson(next[key], record[key]),
  )
  return {
    unchanged: changed.length === 0 && sameJson(settings, settingsOf(record)),
    listsChanged: changed.includes('readPermissions') || changed.includes('writePermissions'),
    authorize: () => refuseLockedByOther(row, caller),
    columns: () => ({
      name: next.name,
      last_activation_date: Date.parse(next.lastActivationDate),
      ...accessLists.toColumns(next),
      settings: JSON.stringify(settings),
      last_modification_author_id: caller.accountId,
      last_modification_date: Math.max(Date.now(), record.lastModificationDate ?? record.date),
    }),
  }
}

// The configuration record: `data` of the configuration events and the configurations API's
// answers, with the defaults of a new configuration.
import { type Static, Type } from 'typebox'
import { AccessList, Email, Millis, RecordId, Revision } from './primitives.ts'

/**
 * The vertical field of view, in degrees, of each `cameraFoVIndex` (an index outside the table reads
 * as 0). The console's camera (packages/console, viewer/state/camera.ts) draws with the same table.
 */
export const CAMERA_FOV_PRESETS = [45, 30, 60, 75, 90] as const

const configurationFields = {
  _id: RecordId,
  file: RecordId,
  name: Type.String(),
  author: Email,
  lastModificationAuthor: Type.Union([Email, Type.Null()], { description: 'null until the first update' }),
  lockedBy: Type.Union([Type.Null(), Type.String()]),
  lastActivationDate: Type.String({ format: 'date-time' }),
  date: Millis,
  lastModificationDate: Type.Optional(Type.Integer({ description: 'ms; absent until the first update' })),
  disableCamera: Type.Boolean(),
  cameraPosition: Type.Array(Type.Number()),
  cameraType: Type.Union([Type.Null(), Type.String(), Type.Number()]),
  environmentFile: Type.Union([Type.Null(), Type.String()]),
  environmentBrightness: Type.Number(),
  environmentOrientation: Type.Number(),
  layersEnabled: Type.Boolean(),
  enabledLayers: Type.Array(Type.Unknown()),
  behaviorsEnabled: Type.Boolean(),
  enabledBehaviors: Type.Array(RecordId),
  enabledEffects: Type.Array(Type.Unknown()),
  transparencyEffectParameters: Type.Object(
    { alphaCoefficient: Type.Number(), _id: RecordId },
    { additionalProperties: false },
  ),
  explodedViewDistance: Type.Union([Type.Number(), Type.Null()]),
  explodedViewEnabled: Type.Boolean(),
  environmentEnabled: Type.Boolean(),
  skyboxEnabled: Type.Boolean(),
  iblEnabled: Type.Boolean(),
  upVector: Type.String({ description: 'X+, X-, Y+, Y-, Z+ or Z-' }),
  zNear: Type.Number(),
  cameraFoVIndex: Type.Integer(),
  activeOnStart: Type.Boolean(),
  modifiersEnabled: Type.Boolean(),
  modifiers: Type.Array(Type.Unknown()),
  sceneEnabled: Type.Boolean(),
  rememberSelection: Type.Boolean(),
  sceneTree: Type.Integer(),
  selectedNodes: Type.Array(Type.String()),
  autosaveCameraPosition: Type.Boolean(),
  collaborationEnabled: Type.Boolean(),
  collaborativeAvatarsEnabled: Type.Boolean(),
  collaborativeSelectionEnabled: Type.Boolean(),
  enabledClippingPlanes: Type.Array(Type.Unknown()),
  clippingPlanesEnabled: Type.Boolean(),
  enabledQuotations: Type.Array(Type.Unknown()),
  quotationsEnabled: Type.Boolean(),
  readPermissions: AccessList,
  writePermissions: AccessList,
}
const renderMode = Type.String({ description: 'e.g. "phong"' })

/** The configuration record as the HTTP API answers it (with `renderMode`). */
export const ConfigurationRecord = Type.Object(
  { ...configurationFields, renderMode, __v: Revision },
  { additionalProperties: false, $id: 'Configuration', title: 'Configuration' },
)

/** `data` of configuration_created and inside configuration_updated: the spec shows no `renderMode`. */
export const ConfigurationEventRecord = Type.Object(
  { ...configurationFields, __v: Revision },
  { additionalProperties: false, title: 'ConfigurationInEvent' },
)

/** `data` of configuration_removed: the spec shows `renderMode` here. */
export const ConfigurationRemovedRecord = Type.Object(
  { ...configurationFields, renderMode, __v: Revision },
  { additionalProperties: false, title: 'ConfigurationRemoved' },
)

export type ConfigurationRecordShape = Static<typeof ConfigurationRecord>

/** Columns of their own; everything else of the record lives in the `settings` JSON document. */
type ColumnFields =
  | '_id'
  | 'file'
  | 'name'
  | 'author'
  | 'lastModificationAuthor'
  | 'lockedBy'
  | 'lastActivationDate'
  | 'date'
  | 'lastModificationDate'
  | 'readPermissions'
  | 'writePermissions'
  | '__v'
/** The record's viewer-state fields (everything but identity, authorship, dates and access lists). */
export type ConfigurationSettings = Omit<ConfigurationRecordShape, ColumnFields>

/** Defaults of a new configuration: the viewer's plain perspective view, optional features off. */
export function defaultConfigurationSettings(newId: () => string): ConfigurationSettings {
  return {
    disableCamera: false,
    cameraPosition: [],
    cameraType: null,
    environmentFile: null,
    environmentBrightness: 1,
    environmentOrientation: 0,
    layersEnabled: false,
    enabledLayers: [],
    behaviorsEnabled: false,
    enabledBehaviors: [],
    enabledEffects: [],
    transparencyEffectParameters: { alphaCoefficient: 0.5, _id: newId() },
    explodedViewDistance: null,
    explodedViewEnabled: false,
    environmentEnabled: false,
    skyboxEnabled: false,
    iblEnabled: false,
    upVector: 'Y+',
    zNear: 0.1,
    cameraFoVIndex: 0,
    activeOnStart: false,
    modifiersEnabled: false,
    modifiers: [],
    sceneEnabled: true,
    rememberSelection: false,
    sceneTree: 0,
    selectedNodes: [],
    autosaveCameraPosition: false,
    collaborationEnabled: false,
    collaborativeAvatarsEnabled: false,
    collaborativeSelectionEnabled: false,
    enabledClippingPlanes: [],
    clippingPlanesEnabled: false,
    enabledQuotations: [],
    quotationsEnabled: false,
    renderMode: 'phong',
  }
}

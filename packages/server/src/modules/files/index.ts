// Files: records, directories, uploads and revisions, downloads, sharing and access; the locks of a
// file (one order, see locks.ts) and its conversion state, which the conversion module moves.
export {
  fileReaderIds,
  requireFileAccess,
} from './access.ts'
export type { ItemCaller } from './item-kind.ts'
export { FileItems } from './items.ts'
export { lockFile } from './locks.ts'
export { sweepPrunedRevisions } from './revisions.ts'
export { fileRoutes } from './routes.ts'

export { discardBlob, recordOf } from './service.ts'
export { fileSettings } from './settings.ts'
export { refreshRolesOfAccount } from './sharing.ts'
export {
  conversionSource,
  filesWithoutLiveConversion,
  markConverting,
  markFailed,
  markQueued,
  markReady,
  reportProgress,
} from './state.ts'
export type { StoredBytesReader, UploadFormatPolicy } from './upload-format.ts'

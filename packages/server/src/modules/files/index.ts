// Files: records, directories, uploads and revisions, downloads, sharing and access; the locks of a
// file (one order, see locks.ts) and its conversion state, which the conversion module moves.
export {
  type AccessibleFile,
  type FileAccess,
  type FileNeed,
  type FileRole,
  fileReaderIds,
  fileReaders,
  requireFileAccess,
} from './access.ts'
export type { ItemCaller } from './item-kind.ts'
export { FileItems } from './items.ts'
export { lockFile, lockFilePath } from './locks.ts'
export { sweepPrunedRevisions } from './revisions.ts'
export { fileRoutes } from './routes.ts'
export { FileRecord } from './schemas.ts'
export { discardBlob, type FileRecordShape, listFiles, recordOf, toFileRecord } from './service.ts'
export { refreshRolesOfAccount } from './sharing.ts'
export {
  type ConversionSource,
  conversionSource,
  filesWithoutLiveConversion,
  markConverting,
  markFailed,
  markQueued,
  markReady,
  type OptimizedAsset,
  reportProgress,
} from './state.ts'
export type { StoredBytesReader, UploadFormatPolicy } from './upload-format.ts'

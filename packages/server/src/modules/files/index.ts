// Files: records, directories, uploads and revisions, downloads, sharing and access; the locks of a
// file (one order, see locks.ts) and its conversion state, which the conversion module moves. The
// items that live on a file (annotations, configurations) are modules/file-items'.
export {
  type FileAccess,
  type FileRole,
  fileReaderIds,
  fileReaders,
  requireFileAccess,
} from './access.ts'
export { onFileAccessChanged } from './access-notices.ts'
export { registerListingCacheMetrics } from './listing/metrics.ts'
export { lockFile } from './locks.ts'
export { checkAccountQuota, lockAccountQuota } from './quota.ts'
export { type ReadableFile, readableFilesAfter } from './readable.ts'
export { setShareLink } from './repository.ts'
export { sweepPrunedRevisions } from './revisions/service.ts'
export { fileRoutes } from './routes.ts'
export { discardBlob, recordOf, requireFileRead } from './service.ts'
export { fileSettings } from './settings.ts'
export { refreshRolesOfAccount } from './sharing/service.ts'
export {
  conversionSource,
  filesWithoutLiveConversion,
  markConverting,
  markFailed,
  markQueued,
  markReady,
  reportProgress,
} from './state.ts'
export type { StoredBytesReader, UploadFormatPolicy } from './upload/format.ts'

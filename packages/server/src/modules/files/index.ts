// Files: records, directories, uploads and revisions, downloads, sharing and access.
export {
  type AccessibleFile,
  type FileAccess,
  type FileNeed,
  type FileRole,
  fileReaderIds,
  fileReaders,
  requireFileAccess,
} from './access.ts'
export {
  emitItemEvent,
  type FileItemKind,
  type ItemViewer,
  itemViewer,
  loadItemForChange,
} from './items.ts'
export { fileRoutes } from './routes.ts'
export { FileRecord } from './schemas.ts'
export { discardBlob, type FileRecordShape, listFiles, recordOf, toFileRecord } from './service.ts'

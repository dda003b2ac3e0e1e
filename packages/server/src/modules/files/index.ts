// Files: records, directories, access (uploads, sharing and blobs come with the files issue).
export {
  type AccessibleFile,
  type FileAccess,
  type FileNeed,
  type FileRole,
  fileReaderIds,
  requireFileAccess,
} from './access.ts'
export { fileRoutes } from './routes.ts'
export { type FileRecordShape, listFiles, toFileRecord } from './service.ts'

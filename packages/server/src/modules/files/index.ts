// Files: records, directories (uploads, sharing and blobs come with the files issue).
export { fileRoutes } from './routes.ts'
export { type FileRecordShape, listFiles, toFileRecord } from './service.ts'

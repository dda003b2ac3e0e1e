// Backup and restore of a whole instance: the database (SQLite online backup / pg_dump), the blobs
// its rows refer to, and a manifest. A kernel tool: it reads every table, so it sits below the modules.
export { BackupError, backup } from './backup.ts'
export type { Manifest } from './manifest.ts'
export { restore } from './restore.ts'

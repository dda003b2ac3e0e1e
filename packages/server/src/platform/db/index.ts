// Storage kernel: one Kysely instance over better-sqlite3 (embedded default) or pg (scale-out).
// Dialect differences live in this folder and nowhere else. This file is the kernel's one door:
// code outside platform/db imports from here (schema.ts's table types excepted).

export {
  configuredDialect,
  type Dialect,
  forDialect,
  isDialect,
  mismatchedDialect,
  type PerDialect,
} from './dialect.ts'
export { migrate } from './migrate.ts'
export { openDatabase, ping } from './open.ts'
export { precompiled } from './precompiled.ts'
export type { RowChangeListener, RowWatch, WatchedTable } from './row-changes.ts'
export { awaitRowChangesSeen } from './row-sync.ts'
export type { Database } from './schema.ts'
export { lockResource } from './transactions.ts'
export type { Db, Executor, Tx } from './types.ts'

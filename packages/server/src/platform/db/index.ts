// Storage kernel: one Kysely instance over better-sqlite3 (embedded default) or pg (scale-out).
// The kernel's dialect differences live in this folder; a layer's own are in its sqlite/ and postgres/
// folders, picked with forDialect (dialect.ts). This file is the kernel's door: code outside
// platform/db imports from here, except schema.ts's table types, raw-sql.ts (the sqlite/ and
// postgres/ stores of events/ and delivery/) and revised-rows.ts (item repositories).

export {
  chosenPerDatabase,
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

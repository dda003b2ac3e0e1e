// File items: records that live on a file and carry access lists of their own (annotations,
// configurations). The shared skeleton — the routes' shapes, the access lists, the per-file totals
// and caps, the paging — while each kind's module owns its table and plugs its rows in (kind.ts).

export * as accessLists from './access-lists.ts'
export { normalizeAccessList } from './acl.ts'
export type { ItemCaller } from './kind.ts'
export { ItemRoutes } from './routes.ts'
export { AccessListInput } from './schemas.ts'
export { FileItems } from './service.ts'
export { fileItemSettings } from './settings.ts'

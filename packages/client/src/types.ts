// Names for the generated OpenAPI types the SDK's signatures use. Nothing here is hand-written:
// every type is looked up in src/generated/api.ts.
import type { components, paths } from './generated/api.ts'

type Schemas = components['schemas']
export type FileView = Schemas['FileView']
export type SharedFileView = Schemas['SharedFileView']
/** A file's conversion state: queued → converting → ready | error. */
export type FileState = FileView['state']
export type FileRecord = Schemas['FileRecord']
export type Webhook = Schemas['Webhook']
export type WebhookDelivery = Schemas['WebhookDelivery']
export type WebhookDeliveryDetail = Schemas['WebhookDeliveryDetail']
export type Annotation = Schemas['Annotation']
export type AnnotationReply = Schemas['AnnotationReply']
/** A discussion as one caller sees it: its counts, their unread replies and read marker. */
export type DiscussionState = Schemas['DiscussionState']
export type Configuration = Schemas['Configuration']
export type SceneNode = Schemas['SceneNode']
export type FileRevision = Schemas['FileRevision']
export type Problem = Schemas['Problem']

/** The JSON body of `method path`. */
export type JsonBody<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } }
}
  ? B
  : never
/** The query parameters of `method path`. */
export type Query<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  parameters: { query?: infer Q }
}
  ? NonNullable<Q>
  : never
/** The 200 JSON answer of `method path`. */
export type Answer<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer A } } }
}
  ? A
  : never

export type ShareRole = JsonBody<'/file/{id}/share', 'post'>['role']
export type NodeAttributes = JsonBody<'/scene/attributes', 'post'>['nodeIdToAttributes']
export type DeliveryStatus = NonNullable<Query<'/webhook/{id}/deliveries', 'get'>['status']>
/** One page of a private directory: its files and, on the first page, its direct sub-folders. */
export type FolderPage = Omit<Answer<'/file/dir/private/', 'get'>, 'success'>
/** One page of the files the caller starred, each with the caller's `role`. */
export type FavouritesPage = Omit<Answer<'/file/dir/favourites/', 'get'>, 'success'>
/** One page of the files other accounts shared with the caller, each with the caller's `role`. */
export type SharedPage = Omit<Answer<'/file/dir/shared/', 'get'>, 'success'>
/** One account as administrators see it (GET /admin/accounts). */
export type AdminAccount = Answer<'/admin/accounts', 'get'>['accounts'][number]
/** One page of `GET /scene/properties`: node ID → group → property name → value, the units, `nextCursor`. */
export type PropertiesPage = Omit<Answer<'/scene/properties', 'get'>, 'success'>
/** The model's own properties of nodes (read at conversion): node ID → group → property name → value. */
export type NodeProperties = PropertiesPage['nodeIdToProperties']
/** A property's value: text, number or boolean. */
export type PropertyValue = NodeProperties[string][string][string]
/** group → property name → unit (`m`, `m²`, `kg`, …) of the values that have one. */
export type PropertyUnits = PropertiesPage['units']
/** Properties of several nodes with their units, every page (or every named node) merged. */
export type SceneProperties = Omit<PropertiesPage, 'nextCursor'>
/**
 * One condition of a search: `{group, name, op, value?}` on a property (`op`: eq, ne, contains, lt,
 * lte, gt, gte, exists), or `{node: 'name', op, value}` on the node's name (`op`: eq, ne, contains).
 */
export type SearchCondition = JsonBody<'/scene/search', 'post'>['where'][number]
/** One page of a search: the matching node IDs (in node ID order), `total` over every page, `nextCursor`. */
export type SearchPage = Omit<Answer<'/scene/search', 'post'>, 'success'>
/** One page of a search across files: the `files` with matching nodes (in file ID order) and `nextCursor`. */
export type FileSearchPage = Omit<Answer<'/scene/search/files', 'post'>, 'success'>
/** A file a search across files found: `file` (its ID), `name`, `parent`, your `role`, how many nodes `matches`. */
export type FileMatch = FileSearchPage['files'][number]
/**
 * What a BCF import did (`files.importBcf`): the `version` read (`2.1` or `3.0`), the `topics` in the
 * file, the IDs of the `annotations` and `configurations` (saved views) it made, the `comments` added
 * as replies, the topics `unchanged` (the file held them with nothing new), the `unknownComponents`
 * (IFC GlobalIds the model does not have) and `notes` on what was left out or cut.
 */
export type BcfImport = Omit<Answer<'/file/{id}/bcf', 'post'>, 'success'>

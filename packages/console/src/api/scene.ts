// The model's scene tree, its own properties and their search, attributes, annotations and saved
// views (configurations), through the SDK (tessera.files.sceneTree, .properties, .search,
// tessera.attributes, .annotations, .configurations).
import type { Connection } from './connection.ts'
import type {
  Annotation,
  AnnotationFields,
  Attributes,
  Configuration,
  ConfigurationFields,
  SceneNode,
  SceneProperties,
  SearchCondition,
  SearchPage,
} from './types.ts'

export class Scene {
  readonly #connection: Connection

  constructor(connection: Connection) {
    this.#connection = connection
  }

  sceneTree(file: string): Promise<SceneNode[]> {
    return this.#connection.reader.files.sceneTree(file)
  }

  /** Every node's attributes, following `nextCursor` pages. */
  attributes(file: string): Promise<Record<string, Attributes>> {
    return this.#connection.reader.attributes.all(file)
  }

  /** The model's own (read-only) properties of these nodes, with their units; a link's guest too. */
  properties(file: string, nodes: readonly string[]): Promise<SceneProperties> {
    return this.#connection.reader.files.properties(file, nodes)
  }

  /** The first `limit` nodes that have properties (the names a search can offer). */
  async somePropertyNames(file: string, limit: number): Promise<SceneProperties> {
    const { nodeIdToProperties, units } = await this.#connection.reader.files.propertiesPage(file, { limit })
    return { nodeIdToProperties, units }
  }

  /** One page of the nodes every condition holds for (`limit` at most 1,000), with `total` and `nextCursor`. */
  search(
    file: string,
    where: readonly SearchCondition[],
    page: { limit: number; cursor?: string },
  ): Promise<SearchPage> {
    return this.#connection.reader.files.search(file, where, page)
  }

  /** Merge per attribute: a `null` value removes that attribute. */
  setAttributes(
    file: string,
    nodeIdToAttributes: Record<string, Attributes>,
  ): Promise<Record<string, Attributes>> {
    return this.#connection.signedIn.attributes.set(file, nodeIdToAttributes)
  }

  annotations(file: string): Promise<Annotation[]> {
    return this.#connection.reader.annotations.list(file)
  }

  createAnnotation(fields: AnnotationFields & { file: string; name: string }): Promise<Annotation> {
    return this.#connection.signedIn.annotations.create(fields)
  }

  updateAnnotation(fields: AnnotationFields & { _id: string }): Promise<Annotation> {
    return this.#connection.signedIn.annotations.update(fields)
  }

  async deleteAnnotation(id: string): Promise<void> {
    await this.#connection.signedIn.annotations.delete(id)
  }

  configurations(file: string): Promise<Configuration[]> {
    return this.#connection.reader.configurations.list(file)
  }

  /** Create (no `_id`) or update (with `_id`) a saved view. */
  saveConfiguration(fields: ConfigurationFields): Promise<Configuration> {
    return this.#connection.signedIn.configurations.save(fields)
  }

  async deleteConfiguration(id: string): Promise<void> {
    await this.#connection.signedIn.configurations.delete(id)
  }

  /** Stores a saved view's thumbnail (PNG or WebP, at most 64 KiB); the record does not change. */
  async setViewThumbnail(id: string, image: Blob): Promise<void> {
    await this.#connection.signedIn.configurations.setThumbnail(id, image)
  }

  /** The sha256 of each saved view's thumbnail, by view id (views without one are absent). */
  async viewThumbnails(file: string): Promise<Map<string, string>> {
    const entries = await this.#connection.reader.configurations.thumbnails(file)
    return new Map(entries.map((e) => [e.configuration, e.sha256]))
  }

  /** A saved view's thumbnail (a link's guest too); 404 NOT_FOUND when it has none. */
  viewThumbnail(id: string): Promise<Blob> {
    return this.#connection.reader.configurations.thumbnail(id)
  }

  /** Locks (`on`) a saved view for me, or releases its lock (its holder or the file's owner). */
  setViewLock(id: string, on: boolean): Promise<Configuration> {
    const configurations = this.#connection.signedIn.configurations
    return on ? configurations.lock(id) : configurations.unlock(id)
  }
}

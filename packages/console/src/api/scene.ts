// The model's scene tree and attributes, annotations and saved views (configurations), through the
// SDK (tessera.files.sceneTree, tessera.attributes, .annotations, .configurations).
import type { Connection } from './connection.ts'
import type {
  Annotation,
  AnnotationFields,
  Attributes,
  Configuration,
  ConfigurationFields,
  SceneNode,
} from './types.ts'

export class Scene {
  readonly #connection: Connection

  constructor(connection: Connection) {
    this.#connection = connection
  }

  sceneTree(file: string): Promise<SceneNode[]> {
    return this.#connection.signedIn.files.sceneTree(file)
  }

  /** Every node's attributes, following `nextCursor` pages. */
  attributes(file: string): Promise<Record<string, Attributes>> {
    return this.#connection.signedIn.attributes.all(file)
  }

  /** Merge per attribute: a `null` value removes that attribute. */
  setAttributes(
    file: string,
    nodeIdToAttributes: Record<string, Attributes>,
  ): Promise<Record<string, Attributes>> {
    return this.#connection.signedIn.attributes.set(file, nodeIdToAttributes)
  }

  annotations(file: string): Promise<Annotation[]> {
    return this.#connection.signedIn.annotations.list(file)
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
    return this.#connection.signedIn.configurations.list(file)
  }

  /** Create (no `_id`) or update (with `_id`) a saved view. */
  saveConfiguration(fields: ConfigurationFields): Promise<Configuration> {
    return this.#connection.signedIn.configurations.save(fields)
  }

  async deleteConfiguration(id: string): Promise<void> {
    await this.#connection.signedIn.configurations.delete(id)
  }
}

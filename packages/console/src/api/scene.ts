// The model's scene tree and attributes, annotations and saved views (configurations).
import type { Http } from './http.ts'
import type { Annotation, Attributes, Configuration, SceneNode } from './types.ts'

export class Scene {
  constructor(private readonly http: Http) {}

  sceneTree(file: string): Promise<SceneNode[]> {
    return this.http.json<{ tree: SceneNode[] }>('GET', `/file/${file}/scene-tree`).then((a) => a.tree)
  }

  /** Every node's attributes, following `nextCursor` pages. */
  async attributes(file: string): Promise<Record<string, Attributes>> {
    const all: Record<string, Attributes> = {}
    let cursor: string | undefined
    for (let page = 0; page < 1000; page++) {
      const answer = await this.http.json<{
        nodeIdToAttributes: Record<string, Attributes>
        nextCursor?: string | null
      }>('GET', '/scene/attributes', { query: { file, cursor } })
      Object.assign(all, answer.nodeIdToAttributes)
      if (!answer.nextCursor) break
      cursor = answer.nextCursor
    }
    return all
  }

  /** Merge per attribute: a `null` value removes that attribute. */
  setAttributes(
    file: string,
    nodeIdToAttributes: Record<string, Attributes>,
  ): Promise<Record<string, Attributes>> {
    return this.http
      .json<{ nodeIdToAttributes: Record<string, Attributes> }>('POST', '/scene/attributes', {
        json: { file, nodeIdToAttributes },
      })
      .then((a) => a.nodeIdToAttributes)
  }

  annotations(file: string): Promise<Annotation[]> {
    return this.http
      .json<{ annotations: Annotation[] }>('GET', '/annotation/', { query: { file } })
      .then((a) => a.annotations)
  }

  createAnnotation(fields: Partial<Annotation> & { file: string; name: string }): Promise<Annotation> {
    return this.http
      .json<{ annotation: Annotation }>('POST', '/annotation/create/', { json: fields })
      .then((a) => a.annotation)
  }

  updateAnnotation(fields: Partial<Annotation> & { _id: string }): Promise<Annotation> {
    return this.http
      .json<{ annotation: Annotation }>('POST', '/annotation/update/', { json: fields })
      .then((a) => a.annotation)
  }

  async deleteAnnotation(id: string): Promise<void> {
    await this.http.fetch('DELETE', '/annotation/delete/', { query: { _id: id } })
  }

  configurations(file: string): Promise<Configuration[]> {
    return this.http
      .json<{ configurations: Configuration[] }>('GET', '/file/configuration/', { query: { file } })
      .then((a) => a.configurations)
  }

  /** Create (no `_id`) or update (with `_id`) a saved view. */
  saveConfiguration(fields: Partial<Configuration>): Promise<Configuration> {
    return this.http
      .json<{ configuration: Configuration }>('POST', '/file/configuration/', { json: fields })
      .then((a) => a.configuration)
  }

  async deleteConfiguration(id: string): Promise<void> {
    await this.http.fetch('DELETE', '/file/configuration/', { query: { _id: id } })
  }
}

// Scene attributes, annotations and configurations: thin typed wrappers over their routes.
import { type ApiClient, unwrap } from './http.ts'
import { type ListOptions, Paged, pageQuery } from './paging.ts'
import type { Annotation, Answer, Configuration, JsonBody, NodeAttributes, Query } from './types.ts'

export type AttributesPage = Answer<'/scene/attributes', 'get'>
export type AnnotationInput = JsonBody<'/annotation/create/', 'post'>
export type AnnotationUpdate = JsonBody<'/annotation/update/', 'post'>
export type ConfigurationInput = JsonBody<'/file/configuration/', 'post'>

export class SceneAttributes {
  private readonly api: ApiClient

  constructor(api: ApiClient) {
    this.api = api
  }

  /** Merges per attribute: a `null` value removes that attribute. Answers the nodes written. */
  async set(file: string, nodeIdToAttributes: NodeAttributes): Promise<NodeAttributes> {
    const call = this.api.POST('/scene/attributes', { body: { file, nodeIdToAttributes } })
    return (await unwrap(call)).nodeIdToAttributes
  }

  /** One page; pass the answer's `nextCursor` as `cursor` for the next (null on the last). */
  async page(file: string, options: { limit?: number; cursor?: string } = {}): Promise<AttributesPage> {
    const query: Query<'/scene/attributes', 'get'> = { file }
    if (options.limit !== undefined) query.limit = String(options.limit)
    if (options.cursor !== undefined) query.cursor = options.cursor
    return unwrap(this.api.GET('/scene/attributes', { params: { query } }))
  }

  /** Every node's attributes, page by page. */
  async *pages(file: string, limit?: number): AsyncGenerator<NodeAttributes> {
    let cursor: string | undefined
    do {
      const page = await this.page(file, { ...(limit ? { limit } : {}), ...(cursor ? { cursor } : {}) })
      yield page.nodeIdToAttributes
      cursor = page.nextCursor ?? undefined
    } while (cursor)
  }

  /** All attributes of the file in one object (pages through it). */
  async all(file: string): Promise<NodeAttributes> {
    const all: NodeAttributes = {}
    for await (const page of this.pages(file)) Object.assign(all, page)
    return all
  }
}

export class Annotations {
  private readonly api: ApiClient

  constructor(api: ApiClient) {
    this.api = api
  }

  /** The annotations of a file the caller may see, oldest first, paged (paging.ts). */
  list(file: string, options: ListOptions = {}): Paged<Annotation> {
    return new Paged(async (request) => {
      const query = { file, ...pageQuery(request) }
      const page = await unwrap(this.api.GET('/annotation/', { params: { query } }))
      return { items: page.annotations, nextCursor: page.nextCursor ?? null }
    }, options)
  }

  async create(input: AnnotationInput): Promise<Annotation> {
    return (await unwrap(this.api.POST('/annotation/create/', { body: input }))).annotation
  }

  /** Changes the fields given; with `__v`, only if it is still the current revision (else 409 CONFLICT). */
  async update(input: AnnotationUpdate): Promise<Annotation> {
    return (await unwrap(this.api.POST('/annotation/update/', { body: input }))).annotation
  }

  /** Answers the removed annotation. */
  async delete(id: string): Promise<Annotation> {
    return (await unwrap(this.api.DELETE('/annotation/delete/', { body: { _id: id } }))).annotation
  }
}

export class Configurations {
  private readonly api: ApiClient

  constructor(api: ApiClient) {
    this.api = api
  }

  /** The configurations of a file the caller may see, oldest first, paged (paging.ts). */
  list(file: string, options: ListOptions = {}): Paged<Configuration> {
    return new Paged(async (request) => {
      const query = { file, ...pageQuery(request) }
      const page = await unwrap(this.api.GET('/file/configuration/', { params: { query } }))
      return { items: page.configurations, nextCursor: page.nextCursor ?? null }
    }, options)
  }

  /** Creates one (without `_id`; `file` required) or updates one (with `_id`). */
  async save(input: ConfigurationInput): Promise<Configuration> {
    return (await unwrap(this.api.POST('/file/configuration/', { body: input }))).configuration
  }

  /** Answers the removed configuration. */
  async delete(id: string): Promise<Configuration> {
    return (await unwrap(this.api.DELETE('/file/configuration/', { body: { _id: id } }))).configuration
  }
}

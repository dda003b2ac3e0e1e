// Scene attributes, annotations and configurations: thin typed wrappers over their routes.
import { type ApiClient, unwrap } from './http.ts'
import { type ListOptions, Paged, pageQuery } from './paging.ts'
import type { Annotation, Answer, Configuration, JsonBody, NodeAttributes, Query } from './types.ts'

export type AttributesPage = Answer<'/scene/attributes', 'get'>
export type AnnotationInput = JsonBody<'/annotation/create/', 'post'>
export type AnnotationUpdate = JsonBody<'/annotation/update/', 'post'>
export type ConfigurationInput = JsonBody<'/file/configuration/', 'post'>

/** What storing a thumbnail answers: its type, declared size in pixels, bytes and sha256 (the ETag). */
export type ConfigurationThumbnail = Answer<'/file/configuration/{id}/thumbnail', 'put'>['thumbnail']

/** One entry of `configurations.thumbnails(file)`: the view's id (`configuration`) and its picture's facts. */
export type ConfigurationThumbnailEntry = Answer<
  '/file/configuration/thumbnails/',
  'get'
>['thumbnails'][number]

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

  /**
   * Locks a configuration (`lockedBy` becomes the caller's e-mail): nobody else may change or delete
   * it until its holder or the file's owner unlocks it. Held by another: `TesseraError` with code
   * `CONFIGURATION_LOCKED` (409), its detail naming the holder.
   */
  async lock(id: string): Promise<Configuration> {
    return (await unwrap(this.api.POST('/file/configuration/lock/', { body: { _id: id } }))).configuration
  }

  /** Releases the lock: its holder or the file's owner (others: 403). */
  async unlock(id: string): Promise<Configuration> {
    return (await unwrap(this.api.POST('/file/configuration/unlock/', { body: { _id: id } }))).configuration
  }

  /**
   * Stores the saved view's thumbnail: a PNG or WebP `Blob` (its `type` is sent as Content-Type) of
   * at most 64 KiB declaring at most 1024×1024 (else 413 / 415); needs the right to change the view.
   * The record itself does not change.
   */
  async setThumbnail(id: string, image: Blob): Promise<ConfigurationThumbnail> {
    const call = this.api.PUT('/file/configuration/{id}/thumbnail', {
      params: { path: { id } },
      // The schema calls the body a string; it is the image's bytes, sent as they are.
      body: image as unknown as string,
      bodySerializer: () => image,
      headers: { 'content-type': image.type },
    })
    return (await unwrap(call)).thumbnail
  }

  /**
   * Which saved views of the file (those the caller may see) have a thumbnail, with its sha256 (a
   * new sha256 is a new picture): fetch only those.
   */
  async thumbnails(file: string): Promise<ConfigurationThumbnailEntry[]> {
    const call = this.api.GET('/file/configuration/thumbnails/', { params: { query: { file } } })
    return (await unwrap(call)).thumbnails
  }

  /** The saved view's thumbnail as a `Blob` of its type; 404 (`NOT_FOUND`) when it has none. */
  async thumbnail(id: string): Promise<Blob> {
    const call = this.api.GET('/file/configuration/{id}/thumbnail', {
      params: { path: { id } },
      parseAs: 'blob',
    })
    return (await unwrap(call)) as unknown as Blob
  }
}

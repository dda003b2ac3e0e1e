// Files: listing, records, uploads (with progress), downloads as streams, the scene tree, the
// model's own properties and searches of them (in a file, or across files), BCF out and in, and
// waiting for a conversion to finish.
import { type BcfExport, type BcfOptions, type BcfZip, exportBcf, importBcf } from './bcf.ts'
import { TesseraError } from './errors.ts'
import { type ApiClient, errorFromAnswer, networkError, unwrap } from './http.ts'
import type { ProgressCallback } from './multipart.ts'
import { type ListOptions, type Page, Paged, type PageRequest, pageQuery } from './paging.ts'
import type {
  BcfImport,
  FavouritesPage,
  FileMatch,
  FileRevision,
  FileSearchPage,
  FileView,
  FolderPage,
  PropertiesPage,
  PropertyUnits,
  SceneNode,
  SceneProperties,
  SearchCondition,
  SearchPage,
  SharedFileView,
  SharedPage,
  ShareRole,
} from './types.ts'
import { type UploadOptions, type UploadSource, uploadFile } from './upload.ts'
import { type EventsOpener, waitByPolling, waitOnStream } from './wait.ts'

export interface DownloadOptions {
  signal?: AbortSignal
  /** A single byte range, e.g. `bytes=0-1023` (206 Partial Content). */
  range?: string
  /** Called as bytes arrive: `loaded` so far, `total` from Content-Length (undefined without it). */
  onProgress?: ProgressCallback
}

export interface WaitOptions {
  signal?: AbortSignal
  /** Give up after this long (default 10 minutes, the server's conversion timeout). */
  timeoutMs?: number
}

export class Files {
  private readonly api: ApiClient
  /** Opens the live event stream (absent: waiting polls). */
  private readonly events: EventsOpener | undefined

  constructor(api: ApiClient, events?: EventsOpener) {
    this.api = api
    this.events = events
  }

  /**
   * One page of a private directory (`/` = the root): its files and, on the first page, its
   * direct sub-folders with the number of files in each (and below). Follow `nextCursor`.
   */
  async folder(path = '/', page: PageRequest = {}): Promise<FolderPage> {
    const query = { path, ...pageQuery(page) }
    const { success: _, ...rest } = await unwrap(this.api.GET('/file/dir/private/', { params: { query } }))
    return rest
  }

  /** One page of the files other accounts shared with the caller (each with the caller's `role`). */
  async shared(page: PageRequest = {}): Promise<SharedPage> {
    const query = pageQuery(page)
    const { success: _, ...rest } = await unwrap(this.api.GET('/file/dir/shared/', { params: { query } }))
    return rest
  }

  /**
   * The files of one of the caller's directories (`/` = the root): `for await` goes through every
   * page, `page()` gives one, awaiting gives them all as an array. Its sub-folders are in
   * `folder()`'s first page.
   */
  list(directory = '/', options: ListOptions = {}): Paged<FileView> {
    const path = `/${directory.replace(/^\/+|\/+$/g, '')}`
    return new Paged(async (request): Promise<Page<FileView>> => {
      const page = await this.folder(path, request)
      return { items: page.files, nextCursor: page.nextCursor ?? null }
    }, options)
  }

  /** The files other accounts shared with the caller, each with the caller's `role`, paged like list(). */
  listShared(options: ListOptions = {}): Paged<SharedFileView> {
    return new Paged(async (request) => {
      const page = await this.shared(request)
      return { items: page.files, nextCursor: page.nextCursor }
    }, options)
  }

  /** One page of the files the caller starred, own and shared, each with the caller's `role`. */
  async favourites(page: PageRequest = {}): Promise<FavouritesPage> {
    const query = pageQuery(page)
    const { success: _, ...rest } = await unwrap(this.api.GET('/file/dir/favourites/', { params: { query } }))
    return rest
  }

  /** The files the caller starred (in file ID order), paged like list(). */
  listFavourites(options: ListOptions = {}): Paged<FileView> {
    return new Paged(async (request) => {
      const page = await this.favourites(request)
      return { items: page.files, nextCursor: page.nextCursor }
    }, options)
  }

  /** Stars a file the caller may read (again: no change); answers it, `favoritedBy` with the caller. */
  async star(id: string): Promise<FileView> {
    return (await unwrap(this.api.PUT('/file/{id}/favourite', { params: { path: { id } } }))).file
  }

  /** Removes the caller's star (none: no change); answers the file. */
  async unstar(id: string): Promise<FileView> {
    return (await unwrap(this.api.DELETE('/file/{id}/favourite', { params: { path: { id } } }))).file
  }

  /**
   * Owner only: whether visitors with the file's link may join its live sessions (the record's
   * `allowLivePublicMeetings`); turning it off closes the guests' live connections at once.
   */
  async setLiveMeetings(id: string, allow: boolean): Promise<FileView> {
    const call = this.api.PUT('/file/{id}/live-meetings', { params: { path: { id } }, body: { allow } })
    return (await unwrap(call)).file
  }

  async get(id: string): Promise<FileView> {
    return (await unwrap(this.api.GET('/file/{id}', { params: { path: { id } } }))).file
  }

  async delete(id: string): Promise<void> {
    await unwrap(this.api.DELETE('/file/{id}', { params: { path: { id } } }))
  }

  /**
   * Uploads a Blob, File or stream (Node: see `@tessera/client/node` for a path). Uploading to a
   * path that already holds a file makes a new revision of it (same `_id`, `__v` + 1).
   */
  upload(source: UploadSource, options: UploadOptions = {}): Promise<FileView> {
    return uploadFile(this.api, source, options)
  }

  async share(id: string, email: string, role: ShareRole): Promise<FileView> {
    return (
      await unwrap(this.api.POST('/file/{id}/share', { params: { path: { id } }, body: { email, role } }))
    ).file
  }

  async unshare(id: string, email: string): Promise<FileView> {
    const call = this.api.DELETE('/file/{id}/share/{email}', { params: { path: { id, email } } })
    return (await unwrap(call)).file
  }

  /** The original bytes of the current revision. */
  download(id: string, options: DownloadOptions = {}): Promise<ReadableStream<Uint8Array>> {
    return this.#stream(this.api.GET('/file/{id}/download', streamOptions(id, options)), options)
  }

  /**
   * The file's revisions, newest first: the current one (`current: true`), then the earlier ones
   * the server keeps (`TESSERA_FILE_REVISIONS_KEPT`), each named by its `__v`.
   */
  async revisions(id: string): Promise<FileRevision[]> {
    return (await unwrap(this.api.GET('/file/{id}/revisions', { params: { path: { id } } }))).revisions
  }

  /** The original bytes of revision `v` (a `__v` from revisions()); 404 NOT_FOUND when not kept. */
  downloadRevision(
    id: string,
    v: number,
    options: DownloadOptions = {},
  ): Promise<ReadableStream<Uint8Array>> {
    const request = streamOptions(id, options)
    const call = this.api.GET('/file/{id}/revisions/{v}/download', {
      ...request,
      params: { path: { id, v: String(v) } },
    })
    return this.#stream(call, options)
  }

  /** The optimized GLB; 409 NOT_READY until the conversion succeeded. */
  downloadOptimized(id: string, options: DownloadOptions = {}): Promise<ReadableStream<Uint8Array>> {
    return this.#stream(this.api.GET('/file/{id}/optimized', streamOptions(id, options)), options)
  }

  async #stream(
    call: Promise<{ response: Response; error?: unknown }>,
    options: DownloadOptions,
  ): Promise<ReadableStream<Uint8Array>> {
    let answer: { response: Response; error?: unknown }
    try {
      answer = await call
    } catch (error) {
      throw networkError(error, options.signal)
    }
    const { response } = answer
    if (!response.ok) throw errorFromAnswer(response, answer.error)
    if (!response.body) {
      throw new TesseraError({ status: response.status, code: 'UNEXPECTED_RESPONSE', detail: 'no body' })
    }
    return options.onProgress ? counted(response, response.body, options.onProgress) : response.body
  }

  /**
   * The file's annotations and saved views, as the caller sees them, as a BCF 3.0 `.bcfzip`
   * (docs/api.md, "BCF"): its bytes and its name (`house.ifc` → `house.bcfzip`). Owner, editors,
   * viewers and a link's guest.
   */
  exportBcf(id: string, options: BcfOptions = {}): Promise<BcfExport> {
    return exportBcf(this.api, id, options)
  }

  /**
   * Imports a BCF 2.1 or 3.0 `.bcfzip` (at most 32 MiB) into the file's annotations, their replies
   * and saved views, and answers what it did. Sent with an Idempotency-Key, so a retry after a lost
   * answer imports once. Owner and editors: a viewer gets 403 FORBIDDEN, a link's guest 403
   * LINK_READ_ONLY; a body that is not a readable BCF is 400 BCF_INVALID, a larger one 413
   * PAYLOAD_TOO_LARGE.
   */
  importBcf(id: string, zip: BcfZip, options: BcfOptions = {}): Promise<BcfImport> {
    return importBcf(this.api, id, zip, options)
  }

  /** The scene tree (`[{id, name, children}]`); 409 NOT_READY until the conversion succeeded. */
  async sceneTree(id: string): Promise<SceneNode[]> {
    return (await unwrap(this.api.GET('/file/{id}/scene-tree', { params: { path: { id } } }))).tree
  }

  /**
   * The model's own properties (IFC property sets and quantities, glTF extras, …; read at conversion,
   * read-only): `{nodeIdToProperties, units}`. With `nodes`: those nodes, each answered (`{}` when the
   * model says nothing about it; 400 UNKNOWN_NODE for an ID outside the tree), asked 100 at a time
   * (fewer when long IDs would make the URL long).
   * Without: every node that has properties, all pages merged (propertiesPage() for one page).
   */
  async properties(fileId: string, nodes?: readonly string[]): Promise<SceneProperties> {
    const merged: SceneProperties = { nodeIdToProperties: {}, units: {} }
    if (nodes === undefined) {
      let cursor: string | undefined
      do {
        const page = await this.propertiesPage(fileId, cursor === undefined ? {} : { cursor })
        mergeProperties(merged, page)
        cursor = page.nextCursor ?? undefined
      } while (cursor !== undefined)
      return merged
    }
    for (const node of nodeBatches([...new Set(nodes)])) {
      const call = this.api.GET('/scene/properties', { params: { query: { file: fileId, node } } })
      mergeProperties(merged, await unwrap(call))
    }
    return merged
  }

  /**
   * One page of properties() without `nodes`: the nodes that have properties, in node ID order, at
   * most `limit` (default and maximum 1,000); pass the answer's `nextCursor` as `cursor` for the next
   * page (null on the last).
   */
  async propertiesPage(fileId: string, page: PageRequest = {}): Promise<PropertiesPage> {
    const query = { file: fileId, ...pageQuery(page) }
    const { success: _, ...rest } = await unwrap(this.api.GET('/scene/properties', { params: { query } }))
    return rest
  }

  /**
   * One page of the nodes for which every condition of `where` holds (1 to 16): their IDs in node ID
   * order, at most `limit` (default 100, at most 1,000), `total` over every page, and `nextCursor`
   * (null on the last page). searchAll() goes through every page.
   */
  async search(
    fileId: string,
    where: readonly SearchCondition[],
    page: PageRequest = {},
  ): Promise<SearchPage> {
    const body = {
      file: fileId,
      where: [...where],
      ...(page.limit !== undefined ? { limit: page.limit } : {}),
      ...(page.cursor ? { cursor: page.cursor } : {}),
    }
    const { success: _, ...rest } = await unwrap(this.api.POST('/scene/search', { body }))
    return rest
  }

  /**
   * Every node ID search() finds, paged like list(): `for await` goes through every page, `page()`
   * gives one (`{items, nextCursor}`), awaiting gives them all as an array. `limit` is the page size
   * (default the server's maximum, 1,000).
   */
  searchAll(fileId: string, where: readonly SearchCondition[], options: ListOptions = {}): Paged<string> {
    const limit = options.limit ?? SEARCH_PAGE_MAX
    return new Paged(
      async (request): Promise<Page<string>> => {
        const page = await this.search(fileId, where, request)
        return { items: page.nodes, nextCursor: page.nextCursor }
      },
      { limit },
    )
  }

  /**
   * One page of a search across every file you may read (your own and those shared with you): the
   * files with nodes for which every condition of `where` holds (1 to 16, as search()), each with
   * how many `matches`, in file ID order, at most `limit` (default 50, at most 200). A page looks into
   * a bounded number of files, so it may hold fewer files than `limit`, even none, and still have a
   * `nextCursor`: the search is done when `nextCursor` is null. searchFilesAll() follows every page.
   */
  async searchFiles(where: readonly SearchCondition[], page: PageRequest = {}): Promise<FileSearchPage> {
    const body = {
      where: [...where],
      ...(page.limit !== undefined ? { limit: page.limit } : {}),
      ...(page.cursor ? { cursor: page.cursor } : {}),
    }
    const { success: _, ...rest } = await unwrap(this.api.POST('/scene/search/files', { body }))
    return rest
  }

  /** Every file searchFiles() finds, paged like list(); `limit` is the page size (default 200). */
  searchFilesAll(where: readonly SearchCondition[], options: ListOptions = {}): Paged<FileMatch> {
    return new Paged(
      async (request): Promise<Page<FileMatch>> => {
        const page = await this.searchFiles(where, request)
        return { items: page.files, nextCursor: page.nextCursor }
      },
      { limit: options.limit ?? FILE_SEARCH_PAGE_MAX },
    )
  }

  /**
   * Resolves with the file once its conversion succeeded (`state: "ready"`); throws a TesseraError
   * `CONVERSION_FAILED` (with the server's reason as `detail`) when it failed, `TIMEOUT` after
   * `timeoutMs`, `ABORTED` when `signal` fires. Waits on the live event stream (the result
   * arrives as it commits); when the server refuses the stream, polls GET /file/:id with back-off
   * (0.25 s growing to 5 s).
   */
  async waitUntilReady(id: string, options: WaitOptions = {}): Promise<FileView> {
    const deadline = Date.now() + (options.timeoutMs ?? 600_000)
    const get = (fileId: string) => this.get(fileId)
    if (this.events) {
      const file = await waitOnStream(this.events, get, id, deadline, options.signal)
      if (file) return file
    }
    return waitByPolling(get, id, deadline, options.signal)
  }
}

/** The server's most node IDs per properties call (`node`, repeated) and per search page. */
const NODES_PER_PROPERTIES_CALL = 100
const SEARCH_PAGE_MAX = 1000
/** The server's most files per page of a search across files. */
const FILE_SEARCH_PAGE_MAX = 200
/** Characters of `node=` parameters per call: well under the 16 KiB Node allows a request's head. */
const NODE_QUERY_BUDGET = 8000

/** The named nodes in calls of at most 100, and fewer when their IDs are long (up to 512 characters). */
function nodeBatches(nodes: string[]): string[][] {
  const batches: string[][] = []
  let batch: string[] = []
  let size = 0
  for (const node of nodes) {
    const length = encodeURIComponent(node).length + '&node='.length
    if (
      batch.length === NODES_PER_PROPERTIES_CALL ||
      (batch.length > 0 && size + length > NODE_QUERY_BUDGET)
    ) {
      batches.push(batch)
      batch = []
      size = 0
    }
    batch.push(node)
    size += length
  }
  if (batch.length > 0) batches.push(batch)
  return batches
}

/**
 * Adds a page's nodes and units to `into`. Keys are set as own properties: a group or property
 * named `__proto__` (a model's names are the model's) stays a name, never the prototype.
 */
function mergeProperties(into: SceneProperties, page: SceneProperties): void {
  for (const [node, groups] of Object.entries(page.nodeIdToProperties))
    setOwn(into.nodeIdToProperties, node, groups)
  for (const [group, names] of Object.entries(page.units)) {
    const known = Object.hasOwn(into.units, group) ? into.units[group] : undefined
    if (!known) setOwn<PropertyUnits[string]>(into.units, group, { ...names })
    else for (const [name, unit] of Object.entries(names)) setOwn(known, name, unit)
  }
}

function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/** The body, reporting the bytes that went through it. */
function counted(
  response: Response,
  body: ReadableStream<Uint8Array>,
  onProgress: ProgressCallback,
): ReadableStream<Uint8Array> {
  const length = Number(response.headers.get('content-length') ?? Number.NaN)
  const total = Number.isFinite(length) ? length : undefined
  let loaded = 0
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        loaded += chunk.byteLength
        controller.enqueue(chunk)
        onProgress({ loaded, total })
      },
    }),
  )
}

function streamOptions(id: string, options: DownloadOptions) {
  return {
    params: { path: { id } },
    parseAs: 'stream' as const,
    ...(options.range ? { headers: { range: options.range } } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  }
}

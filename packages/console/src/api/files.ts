// Files: listings, uploads with byte progress, conversion progress, sharing, downloads and
// revisions, through the SDK (tessera.files; in browsers its upload is an XHR, the one way to get
// upload progress over HTTP/1.1).
import { ApiError, type Connection } from './connection.ts'
import type {
  BcfImport,
  FileRecord,
  FileRevision,
  FileSearchPage,
  Folder,
  Listing,
  SearchCondition,
} from './types.ts'

export interface UploadProgress {
  loaded: number
  total: number
}

function normalizeFolder(path: string): string {
  const parts = path.split('/').filter((p) => p !== '')
  return parts.length === 0 ? '/' : `/${parts.join('/')}`
}

/** What a file offers to download: the original, the GLB, or the original of an earlier revision. */
export type Download = 'download' | 'optimized' | { revision: number }

export class Files {
  readonly #connection: Connection

  constructor(connection: Connection) {
    this.#connection = connection
  }

  /** A folder of the caller's own files and its direct sub-folders (first page). */
  async listFiles(path = '/', cursor?: string): Promise<Listing> {
    const folder = normalizeFolder(path)
    const page = await this.#connection.signedIn.files.folder(folder, cursor ? { cursor } : {})
    const folders: Folder[] = (page.folders ?? []).map((entry) => ({
      name: entry.name,
      path: entry.path,
      fileCount: entry.files,
    }))
    return { files: page.files, folders, nextCursor: page.nextCursor }
  }

  /** Files others shared with me, each with my role (GET /file/dir/shared/). */
  async listShared(): Promise<FileRecord[]> {
    return (await this.#connection.signedIn.files.shared()).files
  }

  /**
   * One page of the files I may read (own and shared) holding nodes every condition holds for, with
   * how many `matches` (POST /scene/search/files). A page may hold fewer than `limit`, even none,
   * with a `nextCursor`: the search is done only when `nextCursor` is null.
   */
  searchFiles(
    where: readonly SearchCondition[],
    page: { limit: number; cursor?: string },
  ): Promise<FileSearchPage> {
    return this.#connection.signedIn.files.searchFiles(where, page)
  }

  /** The files I starred, own and shared, each with my role (GET /file/dir/favourites/, every page). */
  listFavourites(): Promise<FileRecord[]> {
    return this.#connection.signedIn.files.listFavourites().toArray()
  }

  /** Stars (`on`) or unstars a file I may read; answers the file with its new `favoritedBy`. */
  setFavourite(id: string, on: boolean): Promise<FileRecord> {
    const files = this.#connection.signedIn.files
    return on ? files.star(id) : files.unstar(id)
  }

  /** Owner only: whether the file's link visitors may join its live sessions (`allowLivePublicMeetings`). */
  setLiveMeetings(id: string, allow: boolean): Promise<FileRecord> {
    return this.#connection.signedIn.files.setLiveMeetings(id, allow)
  }

  getFile(id: string): Promise<FileRecord> {
    return this.#connection.reader.files.get(id)
  }

  /** The file's revisions, newest first (GET /file/:id/revisions). */
  listRevisions(id: string): Promise<FileRevision[]> {
    return this.#connection.signedIn.files.revisions(id)
  }

  deleteFile(id: string): Promise<void> {
    return this.#connection.signedIn.files.delete(id)
  }

  share(id: string, email: string, role: 'viewer' | 'editor'): Promise<FileRecord> {
    return this.#connection.signedIn.files.share(id, email, role)
  }

  unshare(id: string, email: string): Promise<FileRecord> {
    return this.#connection.signedIn.files.unshare(id, email)
  }

  /** Upload one file into a folder (a new revision when the name exists there), with byte progress. */
  upload(
    file: Blob & { name: string },
    parent: string,
    onProgress?: (p: UploadProgress) => void,
    signal?: AbortSignal,
  ): Promise<FileRecord> {
    return this.#connection.signedIn.files.upload(file, {
      name: file.name,
      parent: normalizeFolder(parent),
      ...(signal ? { signal } : {}),
      onProgress: (p) => onProgress?.({ loaded: p.loaded, total: p.total ?? file.size }),
    })
  }

  /** Polls the file until its conversion ends; `onChange` sees every new state or progress. */
  async waitUntilReady(
    id: string,
    onChange?: (file: FileRecord) => void,
    options: { intervalMs?: number; signal?: AbortSignal } = {},
  ): Promise<FileRecord> {
    for (;;) {
      const file = await this.getFile(id)
      onChange?.(file)
      if (file.state === 'ready' || file.state === 'error') return file
      if (options.signal?.aborted)
        throw new ApiError({ status: 0, code: 'ABORTED', detail: 'Stopped waiting.' })
      await new Promise((r) => setTimeout(r, options.intervalMs ?? 1000))
    }
  }

  /** Bytes of the original (`download`), the optimized GLB (`optimized`) or a revision's, with progress. */
  async fetchBytes(
    id: string,
    which: Download,
    onProgress?: (p: UploadProgress) => void,
    signal?: AbortSignal,
  ): Promise<ArrayBuffer> {
    const files = this.#connection.reader.files
    const options = {
      ...(signal ? { signal } : {}),
      onProgress: (p: { loaded: number; total: number | undefined }) =>
        onProgress?.({ loaded: p.loaded, total: Math.max(p.total ?? 0, p.loaded) }),
    }
    const stream =
      which === 'optimized' ? await files.downloadOptimized(id, options) : await files.download(id, options)
    return new Response(stream).arrayBuffer()
  }

  /** Save a download to the user's disk (headers cannot ride on a plain link). */
  async saveAs(id: string, which: Download, name: string): Promise<void> {
    const bytes = await this.fetchBytes(id, which)
    saveBlob(new Blob([bytes]), which === 'optimized' ? `${name.replace(/\.[^.]+$/, '')}.glb` : name)
  }

  /**
   * Saves the file's annotations and saved views as a BCF 3.0 `.bcfzip` (GET /file/:id/bcf, a link's
   * guest too) under the server's name for it (`house.ifc` → `house.bcfzip`), and answers that name.
   */
  async saveBcf(id: string): Promise<string> {
    const { bytes, filename } = await this.#connection.reader.files.exportBcf(id)
    // A copy: Blob takes views of an ArrayBuffer only, and the SDK's type also allows a shared one.
    saveBlob(new Blob([new Uint8Array(bytes)], { type: 'application/zip' }), filename)
    return filename
  }

  /** Imports a BCF 2.1 or 3.0 file into the file's annotations and saved views (owner and editors). */
  importBcf(id: string, zip: Blob): Promise<BcfImport> {
    return this.#connection.signedIn.files.importBcf(id, zip)
  }
}

/** Hands bytes to the browser's downloads through a Blob URL and an `<a download>`. */
function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = url
  a.download = name
  a.click()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

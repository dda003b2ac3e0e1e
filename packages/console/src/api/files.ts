// Files: listings, uploads with byte progress, conversion progress, sharing and downloads.
import { ApiError, type Http } from './http.ts'
import type { FileRecord, FileRevision, Folder, Listing } from './types.ts'

export interface UploadProgress {
  loaded: number
  total: number
}

function normalizeFolder(path: string): string {
  const parts = path.split('/').filter((p) => p !== '')
  return parts.length === 0 ? '/' : `/${parts.join('/')}`
}

function folderEntries(raw: unknown, parent: string): Folder[] {
  if (!Array.isArray(raw)) return []
  return raw.flatMap((entry): Folder[] => {
    const name = typeof entry === 'string' ? entry : (entry as { name?: unknown })?.name
    if (typeof name !== 'string') return []
    const count = (entry as { fileCount?: unknown; files?: unknown })?.fileCount
    return [
      {
        name,
        path: normalizeFolder(`${parent}/${name}`),
        fileCount: typeof count === 'number' ? count : undefined,
      },
    ]
  })
}

/** What a file offers to download: the original, the GLB, or the original of an earlier revision. */
export type Download = 'download' | 'optimized' | `revisions/${number}/download`

export class Files {
  constructor(private readonly http: Http) {}

  /**
   * A folder of the caller's own files. Subfolders come from the server's `folders` field where it
   * has one (docs/api.md, listings); a server without it lists files only.
   */
  async listFiles(path = '/', cursor?: string): Promise<Listing> {
    const folder = normalizeFolder(path)
    const url =
      folder === '/'
        ? '/file/dir/private/'
        : `/file/dir/private/${folder.slice(1).split('/').map(encodeURIComponent).join('/')}`
    const answer = await this.http.json<{ files: FileRecord[]; folders?: unknown; nextCursor?: string }>(
      'GET',
      url,
      { query: { cursor } },
    )
    return {
      files: answer.files,
      folders: folderEntries(answer.folders, folder),
      nextCursor: answer.nextCursor,
    }
  }

  /** Files others shared with me, each with my role (GET /file/dir/shared/). */
  async listShared(): Promise<FileRecord[]> {
    const answer = await this.http.json<{ files: FileRecord[] }>('GET', '/file/dir/shared/')
    return answer.files
  }

  getFile(id: string): Promise<FileRecord> {
    return this.http.json<{ file: FileRecord }>('GET', `/file/${id}`).then((a) => a.file)
  }

  /** The file's revisions, newest first (GET /file/:id/revisions). */
  async listRevisions(id: string): Promise<FileRevision[]> {
    const answer = await this.http.json<{ revisions: FileRevision[] }>('GET', `/file/${id}/revisions`)
    return answer.revisions
  }

  async deleteFile(id: string): Promise<void> {
    await this.http.fetch('DELETE', `/file/${id}`)
  }

  share(id: string, email: string, role: 'viewer' | 'editor'): Promise<FileRecord> {
    return this.http
      .json<{ file: FileRecord }>('POST', `/file/${id}/share`, { json: { email, role } })
      .then((a) => a.file)
  }

  unshare(id: string, email: string): Promise<FileRecord> {
    return this.http
      .json<{ file: FileRecord }>('DELETE', `/file/${id}/share/${encodeURIComponent(email)}`)
      .then((a) => a.file)
  }

  /**
   * Upload one file into a folder (a new revision when the name exists there). XHR, not fetch:
   * only XHR reports upload progress. Same-origin and no cookie is ever stored (see http.ts).
   */
  upload(
    file: Blob & { name: string },
    parent: string,
    onProgress?: (p: UploadProgress) => void,
    signal?: AbortSignal,
  ): Promise<FileRecord> {
    const form = new FormData()
    form.append('parent', normalizeFolder(parent))
    form.append('file', file, file.name)
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest()
      xhr.open('POST', this.http.url('/file/upload/'))
      for (const [name, value] of Object.entries(this.http.headers({ accept: 'application/json' })))
        xhr.setRequestHeader(name, value)
      xhr.upload.onprogress = (e) => onProgress?.({ loaded: e.loaded, total: e.total || file.size })
      xhr.onerror = () => reject(new ApiError({ status: 0, code: 'NETWORK', detail: 'The upload failed.' }))
      xhr.onabort = () => reject(new ApiError({ status: 0, code: 'ABORTED', detail: 'Upload cancelled.' }))
      xhr.onload = () => {
        let body: { file?: FileRecord; code?: string; detail?: string } = {}
        try {
          body = JSON.parse(xhr.responseText)
        } catch {
          // handled below as a bare status
        }
        if (xhr.status === 200 && body.file) return resolve(body.file)
        const error = new ApiError({
          status: xhr.status,
          code: body.code ?? `HTTP_${xhr.status}`,
          detail: body.detail,
        })
        this.http.notice(error)
        reject(error)
      }
      signal?.addEventListener('abort', () => xhr.abort())
      xhr.send(form)
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
      if (options.signal?.aborted) throw new ApiError({ status: 0, code: 'ABORTED' })
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
    const response = await this.http.fetch('GET', `/file/${id}/${which}`, { signal })
    const total = Number(response.headers.get('content-length')) || 0
    if (!response.body) return response.arrayBuffer()
    const reader = response.body.getReader()
    const chunks: Uint8Array[] = []
    let loaded = 0
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      loaded += value.byteLength
      onProgress?.({ loaded, total: Math.max(total, loaded) })
    }
    const out = new Uint8Array(loaded)
    let offset = 0
    for (const chunk of chunks) {
      out.set(chunk, offset)
      offset += chunk.byteLength
    }
    return out.buffer
  }

  /** Save a download to the user's disk (headers cannot ride on a plain link). */
  async saveAs(id: string, which: Download, name: string): Promise<void> {
    const bytes = await this.fetchBytes(id, which)
    const url = URL.createObjectURL(new Blob([bytes]))
    const a = document.createElement('a')
    a.href = url
    a.download = which === 'optimized' ? `${name.replace(/\.[^.]+$/, '')}.glb` : name
    a.click()
    setTimeout(() => URL.revokeObjectURL(url), 10_000)
  }
}

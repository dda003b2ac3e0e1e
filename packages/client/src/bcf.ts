// BCF (buildingSMART's BIM Collaboration Format) out and in: a file's annotations and saved views as
// a BCF 3.0 .bcfzip, and a BCF 2.1 or 3.0 file into them (docs/api.md, "BCF"). Files.exportBcf and
// Files.importBcf call these.

import { TesseraError } from './errors.ts'
import { type ApiClient, unwrap, unwrapWithResponse } from './http.ts'
import type { BcfImport } from './types.ts'

/** The largest BCF import the server takes (its modules/bcf/limits.ts BCF_MAX_BYTES). */
const BCF_MAX_BYTES = 32 * 1024 * 1024

export interface BcfOptions {
  signal?: AbortSignal
}

/** A .bcfzip to import, as bytes: a Blob or File, a Uint8Array (a Node Buffer too) or an ArrayBuffer. */
export type BcfZip = Blob | Uint8Array | ArrayBuffer

/** A BCF export: the `.bcfzip`'s bytes and the name the server gives it. */
export interface BcfExport {
  bytes: Uint8Array
  /**
   * The file's name with `.bcfzip` for its extension (`house.ifc` → `house.bcfzip`): a name only,
   * path separators and control characters replaced by `_`.
   */
  filename: string
}

/**
 * Whole in memory rather than a stream like a download: a BCF file is topics and their snapshots,
 * and the name, which the caller needs to save it, comes with the answer.
 */
export async function exportBcf(api: ApiClient, id: string, options: BcfOptions): Promise<BcfExport> {
  const call = api.GET('/file/{id}/bcf', {
    params: { path: { id } },
    parseAs: 'arrayBuffer',
    ...(options.signal ? { signal: options.signal } : {}),
  })
  const { data, response } = await unwrapWithResponse(call, options.signal)
  const filename = attachmentName(response.headers.get('content-disposition')) ?? `${id}.bcfzip`
  return { bytes: new Uint8Array(data), filename }
}

/** The zip goes as application/zip; the retrying fetch replays it (and its key) after a lost answer. */
export async function importBcf(
  api: ApiClient,
  id: string,
  zip: BcfZip,
  options: BcfOptions,
): Promise<BcfImport> {
  const body = zipBlob(zip)
  if (body.size > BCF_MAX_BYTES) {
    // The server answers 413 from the Content-Length and closes while the body is still being
    // sent: a client can then see the connection end instead of the answer. Said here, unsent.
    throw new TesseraError({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      detail: `The BCF file has ${body.size} bytes; the server takes at most ${BCF_MAX_BYTES} (docs/api.md, "BCF").`,
    })
  }
  const call = api.POST('/file/{id}/bcf', {
    params: { path: { id } },
    // The schema calls the body a string; it is the zip's bytes, sent as they are.
    body: body as unknown as string,
    bodySerializer: () => body,
    // Always application/zip: a Blob's own type is often empty, or x-zip-compressed (Windows).
    headers: { 'content-type': 'application/zip' },
    ...(options.signal ? { signal: options.signal } : {}),
  })
  const { success: _, ...report } = await unwrap(call, options.signal)
  return report
}

/** The zip as a Blob (the body sent), its bytes copied only when Blob cannot take them as they are. */
function zipBlob(zip: BcfZip): Blob {
  if (zip instanceof Blob) return zip
  if (zip instanceof ArrayBuffer) return new Blob([zip])
  // Blob takes views of an ArrayBuffer, not of a SharedArrayBuffer: such a view is copied first.
  return new Blob([
    zip.buffer instanceof ArrayBuffer ? (zip as Uint8Array<ArrayBuffer>) : new Uint8Array(zip),
  ])
}

/**
 * The file name a Content-Disposition gives (`filename*`, UTF-8, before `filename`), as a name only:
 * path separators and control characters become `_`, so a caller may write it where it likes.
 */
function attachmentName(header: string | null): string | undefined {
  if (!header) return undefined
  const extended = /filename\*\s*=\s*UTF-8''([^;\s]+)/i.exec(header)?.[1]
  let name: string | undefined
  if (extended) {
    try {
      name = decodeURIComponent(extended)
    } catch {
      // A malformed escape: the plain filename below says the same in ASCII.
    }
  }
  name ??= /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header)?.[1]?.replace(/\\(.)/g, '$1')
  const safe = name?.trim().replace(/[/\\\p{Cc}]/gu, '_')
  return safe && safe !== '.' && safe !== '..' ? safe : undefined
}

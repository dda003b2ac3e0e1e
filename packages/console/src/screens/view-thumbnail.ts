// A saved view's picture: the 3D view drawn small (the engine keeps its drawing buffer, so the last
// frame can be read at any time), stored beside the view on the server (PUT
// /file/configuration/{id}/thumbnail), and shown in the views list.
import { useEffect, useState } from 'preact/hooks'
import { client } from '../api/index.ts'

/** The server's bound: a larger body is refused (413). */
const THUMBNAIL_MAX_BYTES = 64 * 1024
const MAX_WIDTH = 320
const MAX_HEIGHT = 200

function toBlob(canvas: HTMLCanvasElement, type: string, quality?: number): Promise<Blob | null> {
  return new Promise((resolve) => canvas.toBlob(resolve, type, quality))
}

/** `source` drawn into a new canvas of at most `width`×`height`, its aspect kept. */
function scaled(source: HTMLCanvasElement, width: number, height: number): HTMLCanvasElement {
  const scale = Math.min(1, width / source.width, height / source.height)
  const out = document.createElement('canvas')
  out.width = Math.max(1, Math.round(source.width * scale))
  out.height = Math.max(1, Math.round(source.height * scale))
  out.getContext('2d')?.drawImage(source, 0, 0, out.width, out.height)
  return out
}

/**
 * The view as a small WebP (PNG where the browser cannot write WebP): 320×200 at most, lowering the
 * quality, then the size, until it fits 64 KiB; null when even the smallest try does not fit.
 */
async function renderThumbnail(canvas: HTMLCanvasElement): Promise<Blob | null> {
  if (canvas.width === 0 || canvas.height === 0) return null
  for (const shrink of [1, 0.75, 0.5]) {
    const small = scaled(canvas, MAX_WIDTH * shrink, MAX_HEIGHT * shrink)
    for (const quality of [0.85, 0.6, 0.4]) {
      const blob = await toBlob(small, 'image/webp', quality)
      // A browser without a WebP encoder hands back a PNG, which has no quality to lower.
      if (blob && blob.size <= THUMBNAIL_MAX_BYTES) return blob
      if (blob?.type !== 'image/webp') break
    }
  }
  return null
}

/**
 * Renders and stores the thumbnail of view `id`; answers a note for the person when it could not be
 * stored ('' when it was): the view itself is saved either way.
 */
export async function storeThumbnail(id: string, canvas: HTMLCanvasElement | null): Promise<string> {
  const image = canvas ? await renderThumbnail(canvas) : null
  if (!image) return 'The view is saved without a picture: it did not fit 64 KiB.'
  try {
    await client.scene.setViewThumbnail(id, image)
    return ''
  } catch {
    return 'The view is saved, but its picture could not be stored.'
  }
}

/**
 * The object URL of view `id`'s thumbnail, fetched with the session (a link's guest too) when it has
 * one (`sha256`, from the list of pictures) and again when that changes; null while loading and when
 * it has none. The URL is revoked when replaced or gone.
 */
export function useThumbnailUrl(id: string, sha256: string | null): string | null {
  const [url, setUrl] = useState<string | null>(null)
  useEffect(() => {
    if (sha256 === null) {
      setUrl(null)
      return
    }
    let made: string | null = null
    let live = true
    client.scene.viewThumbnail(id).then(
      (blob) => {
        if (!live) return
        made = URL.createObjectURL(blob)
        setUrl(made)
      },
      () => live && setUrl(null),
    )
    return () => {
      live = false
      if (made) URL.revokeObjectURL(made)
    }
  }, [id, sha256])
  return url
}

/** Downloads the 3D view as it is now, as `<model>-<date>.png`. */
export async function downloadScreenshot(canvas: HTMLCanvasElement, model: string): Promise<void> {
  const blob = await toBlob(canvas, 'image/png')
  if (!blob) throw new Error('The browser could not make a picture of the 3D view.')
  const stem = model.replace(/\.[^.]+$/, '').replace(/[\\/:*?"<>|]+/g, '_') || 'view'
  const date = new Date().toISOString().slice(0, 19).replace(/:/g, '-')
  const url = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = url
  a.download = `${stem}-${date}.png`
  document.body.append(a)
  a.click()
  a.remove()
  // The download has started from the URL; keeping it a moment lets slower browsers read it.
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

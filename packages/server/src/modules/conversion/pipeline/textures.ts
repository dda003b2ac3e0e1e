// Texture size cap and re-encoding, with sharp (loaded only when a document has textures).
import { type Document, ImageUtils, type Transform } from '@gltf-transform/core'
import { textureCompress } from '@gltf-transform/functions'

/** Larger textures are scaled down to fit (aspect kept): viewers cannot use more on most GPUs. */
export const MAX_TEXTURE_SIZE = 4096

/**
 * Caps every texture at MAX_TEXTURE_SIZE, then re-encodes each in its own format (PNG, JPEG, WebP,
 * AVIF) and keeps the result only when it is smaller — textureCompress() without `resize` does
 * exactly that, but with `resize` it keeps re-encoded images even when they grew, so the cap is
 * applied here first, to oversized images only.
 */
export function capAndRecompressTextures(): Transform {
  return async function capAndRecompressTextures(document: Document): Promise<void> {
    const textures = document.getRoot().listTextures()
    if (textures.length === 0) return
    const { default: sharp } = await import('sharp')
    for (const texture of textures) {
      const image = texture.getImage()
      const mimeType = texture.getMimeType()
      if (!image || !isSharpFormat(mimeType)) continue
      const size = ImageUtils.getSize(image, mimeType)
      if (!size || Math.max(size[0], size[1]) <= MAX_TEXTURE_SIZE) continue
      const resized = await sharp(image)
        .resize(MAX_TEXTURE_SIZE, MAX_TEXTURE_SIZE, { fit: 'inside', kernel: 'lanczos3' })
        .toFormat(sharpFormat(mimeType))
        .toBuffer()
        .catch(() => undefined) // an image sharp cannot decode is passed through unchanged
      if (resized) texture.setImage(new Uint8Array(resized.buffer, resized.byteOffset, resized.byteLength))
    }
    try {
      await document.transform(textureCompress({ encoder: sharp }))
    } catch {
      // Same: undecodable images stay as they came; re-encoding is only ever a size win.
    }
  }
}

function isSharpFormat(mimeType: string): boolean {
  return ['image/png', 'image/jpeg', 'image/webp', 'image/avif'].includes(mimeType)
}

function sharpFormat(mimeType: string): 'png' | 'jpeg' | 'webp' | 'avif' {
  if (mimeType === 'image/jpeg') return 'jpeg'
  if (mimeType === 'image/webp') return 'webp'
  if (mimeType === 'image/avif') return 'avif'
  return 'png'
}

// Texture size cap and re-encoding, with sharp (loaded only when a document has textures).
import { type Document, ImageUtils, type Texture, type Transform } from '@gltf-transform/core'
import { EXTTextureWebP } from '@gltf-transform/extensions'
import type { Sharp } from 'sharp'
import { declaredBudget, tooMuchDeclared } from './declared.ts'

/** Larger textures are scaled down to fit (aspect kept): viewers cannot use more on most GPUs. */
const MAX_TEXTURE_SIZE = 4096

/**
 * `webp`: a texture is stored as WebP (EXT_texture_webp) when that is smaller than its PNG/JPEG
 * form; `keep`: textures stay in their format, for viewers without WebP support.
 */
export type TextureMode = 'webp' | 'keep'

/** The mode of TESSERA_CONVERSION_TEXTURES (inherited by the conversion's child process). */
export function textureModeFromEnv(env: Record<string, string | undefined> = process.env): TextureMode {
  const raw = env.TESSERA_CONVERSION_TEXTURES?.trim().toLowerCase()
  return raw === 'keep' ? 'keep' : 'webp'
}

/**
 * Refuses a texture whose header declares more pixels than its bytes can plausibly hold, before
 * sharp decodes it: decoding allocates width × height × 4 bytes (a 776 kB PNG declaring
 * 16000 × 16000 pixels took 2.1 GB and 56 s). Each image gets the budget of its own bytes
 * (declared.ts: 64 MiB of pixels, a 4096 × 4096 RGBA texture, whatever its size, and 100× its
 * size beyond).
 */
export function checkTexturePixels(document: Document): void {
  for (const texture of document.getRoot().listTextures()) {
    const image = texture.getImage()
    const size = image ? declaredSize(image, texture.getMimeType()) : null
    if (!image || !size) continue
    const decoded = size[0] * size[1] * 4
    if (decoded > declaredBudget(image.byteLength)) {
      throw tooMuchDeclared(`a ${size[0]} × ${size[1]} texture`, decoded, image.byteLength)
    }
  }
}

/** The width and height an image's header declares; null when unknown or unreadable (sharp decides). */
function declaredSize(image: Uint8Array, mimeType: string): [number, number] | null {
  try {
    return ImageUtils.getSize(image, mimeType)
  } catch {
    return null
  }
}

type SharpFactory = (input: Uint8Array) => Sharp
type Candidate = { image: Uint8Array; mimeType: string }

/**
 * Caps every texture at MAX_TEXTURE_SIZE, then keeps the smallest of: the image as it is (capped),
 * re-encoded in its own format, and (mode `webp`) WebP — lossless from PNG, whose content may be data
 * (normal maps, masks) that lossy coding would damage; lossy from JPEG, which already is. An image
 * sharp cannot decode is passed through unchanged: re-encoding is only ever a size win.
 */
export function capAndRecompressTextures(mode: TextureMode = 'webp'): Transform {
  return async function capAndRecompressTextures(document: Document): Promise<void> {
    const textures = document.getRoot().listTextures()
    if (textures.length === 0) return
    const { default: sharp } = await import('sharp')
    for (const texture of textures) await recompress(sharp, texture, mode)
    const webp = document
      .getRoot()
      .listTextures()
      .some((texture) => texture.getMimeType() === 'image/webp')
    if (webp) document.createExtension(EXTTextureWebP).setRequired(true)
  }
}

async function recompress(sharp: SharpFactory, texture: Texture, mode: TextureMode): Promise<void> {
  const image = texture.getImage()
  const mimeType = texture.getMimeType()
  if (!image || !(mimeType in FORMATS)) return
  try {
    let current: Candidate = { image, mimeType }
    const size = ImageUtils.getSize(image, mimeType)
    if (size && Math.max(size[0], size[1]) > MAX_TEXTURE_SIZE) {
      // A resized image must be re-encoded whatever its size: the cap is a rule, not a saving.
      current = await encode(sharp(image).resize(MAX_TEXTURE_SIZE, MAX_TEXTURE_SIZE, RESIZE), mimeType)
    }
    const candidates = [current, await encode(sharp(current.image), mimeType)]
    if (mode === 'webp' && mimeType !== 'image/webp') {
      candidates.push(await encode(sharp(current.image), 'image/webp', mimeType === 'image/png'))
    }
    const best = candidates.reduce((a, b) => (b.image.byteLength < a.image.byteLength ? b : a))
    if (best.image !== image) texture.setImage(best.image).setMimeType(best.mimeType)
    if (best.mimeType !== mimeType) texture.setURI(replaceExtension(texture.getURI(), best.mimeType))
  } catch {
    // undecodable or unsupported by sharp: kept as it came
  }
}

const RESIZE = { fit: 'inside', kernel: 'lanczos3', withoutEnlargement: true } as const

const FORMATS: Record<string, 'png' | 'jpeg' | 'webp' | 'avif'> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/webp': 'webp',
  'image/avif': 'avif',
}

async function encode(pipeline: Sharp, mimeType: string, lossless = false): Promise<Candidate> {
  const format = FORMATS[mimeType] ?? 'png'
  // WebP's effort 5 (of 6) is smaller than the default 4 for the same quality, decodes as fast.
  const options = format === 'webp' ? { lossless, effort: 5 } : {}
  const buffer = await pipeline.toFormat(format, options).toBuffer()
  return { image: new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength), mimeType }
}

function replaceExtension(uri: string, mimeType: string): string {
  if (!uri) return uri
  return uri.replace(/\.[^./]*$/, '') + ImageUtils.mimeTypeToExtension(mimeType).replace(/^(?!\.)/, '.')
}

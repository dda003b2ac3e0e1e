// What a saved view's thumbnail is, read from its first bytes only: PNG or WebP by their magic bytes,
// and the width and height their headers declare. Nothing is decoded — the server stores the bytes
// as they came — so a small file declaring huge dimensions costs nothing here, and is refused so that
// no browser that shows it has to decode it either.
import { AppError } from '../../platform/errors.ts'

/** The largest thumbnail stored, in bytes (a larger body: 413). */
export const THUMBNAIL_MAX_BYTES = 64 * 1024

/** The largest width and height a thumbnail may declare (larger: 415). */
export const THUMBNAIL_MAX_SIDE = 1024

export type ThumbnailType = 'image/png' | 'image/webp'

export interface ThumbnailImage {
  type: ThumbnailType
  width: number
  height: number
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

const ascii = (bytes: Buffer, at: number, length: number) => bytes.toString('latin1', at, at + length)

function pngSize(bytes: Buffer): { width: number; height: number } | null {
  // The IHDR chunk comes first: its length (13), its type, then width and height (big-endian).
  if (bytes.length < 24 || ascii(bytes, 12, 4) !== 'IHDR') return null
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
}

/** The canvas size of a WebP: simple lossy (VP8), lossless (VP8L) or extended (VP8X). */
function webpSize(bytes: Buffer): { width: number; height: number } | null {
  const chunk = ascii(bytes, 12, 4)
  if (chunk === 'VP8X' && bytes.length >= 30) {
    return { width: bytes.readUIntLE(24, 3) + 1, height: bytes.readUIntLE(27, 3) + 1 }
  }
  if (chunk === 'VP8L' && bytes.length >= 25 && bytes[20] === 0x2f) {
    const bits = bytes.readUInt32LE(21)
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 }
  }
  const keyFrame = bytes[23] === 0x9d && bytes[24] === 0x01 && bytes[25] === 0x2a
  if (chunk === 'VP8 ' && bytes.length >= 30 && keyFrame) {
    return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff }
  }
  return null
}

function sniff(bytes: Buffer): ThumbnailImage | null {
  if (bytes.subarray(0, 8).equals(PNG_SIGNATURE)) {
    const size = pngSize(bytes)
    return size && { type: 'image/png', ...size }
  }
  if (bytes.length >= 16 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') {
    const size = webpSize(bytes)
    return size && { type: 'image/webp', ...size }
  }
  return null
}

/**
 * The thumbnail `bytes` hold, sent as `contentType`: 415 UNSUPPORTED_MEDIA_TYPE unless they are a
 * PNG or a WebP with a readable header, of the type sent, declaring at most 1024×1024 and at least 1×1.
 */
export function checkThumbnail(bytes: Buffer, contentType: string): ThumbnailImage {
  const image = sniff(bytes)
  if (!image) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      'A thumbnail is a PNG or a WebP image: these bytes are neither.',
    )
  }
  if (image.type !== contentType) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `The body is ${image.type} but was sent as ${contentType}: send it with its own type.`,
    )
  }
  const { width, height } = image
  if (width < 1 || height < 1 || width > THUMBNAIL_MAX_SIDE || height > THUMBNAIL_MAX_SIDE) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `The image declares ${width}×${height} pixels; a thumbnail is at most ` +
        `${THUMBNAIL_MAX_SIDE}×${THUMBNAIL_MAX_SIDE}.`,
    )
  }
  return image
}

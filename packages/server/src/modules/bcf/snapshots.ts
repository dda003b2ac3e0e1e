// A viewpoint's snapshot (PNG or JPEG, any size) as a saved view's thumbnail: WebP, at most 64 KiB
// and 1024×1024 (modules/configurations). Decoded by sharp (libvips, outside the V8 heap) with a
// pixel bound; at most MAX_SNAPSHOTS per import, as each costs a decode.
import sharp from 'sharp'
import { THUMBNAIL_MAX_BYTES } from '../configurations/index.ts'
import { BCF_MAX_IMAGE_PIXELS } from './limits.ts'
import type { BcfSnapshot } from './model.ts'

export const MAX_SNAPSHOTS = 200

export interface Thumbnail {
  bytes: Buffer
  contentType: 'image/webp'
}

/** Side and quality tried in turn until the WebP fits. */
const ATTEMPTS: [number, number][] = [
  [640, 80],
  [480, 70],
  [320, 60],
  [200, 50],
]

/** The thumbnail of `snapshot`, or null when it is not an image sharp can read within the bounds. */
export async function thumbnailOf(snapshot: BcfSnapshot): Promise<Thumbnail | null> {
  try {
    for (const [side, quality] of ATTEMPTS) {
      const bytes = await sharp(snapshot.bytes, { limitInputPixels: BCF_MAX_IMAGE_PIXELS })
        .resize(side, side, { fit: 'inside', withoutEnlargement: true })
        .webp({ quality })
        .toBuffer()
      if (bytes.length <= THUMBNAIL_MAX_BYTES) return { bytes, contentType: 'image/webp' }
    }
    return null
  } catch {
    return null
  }
}

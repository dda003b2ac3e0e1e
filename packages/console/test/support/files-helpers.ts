// Helpers of the files/uploads/webhooks browser test: generated models and upload throttling
// through the Chrome DevTools Protocol.
import type { CDPSession } from 'playwright-core'

/** A binary STL of `triangles` small triangles in a row (50 bytes each): a real, convertible model. */
export function binaryStl(triangles: number): Buffer {
  const buffer = Buffer.alloc(84 + 50 * triangles)
  buffer.write('tessera test strip', 0, 'ascii')
  buffer.writeUInt32LE(triangles, 80)
  for (let i = 0; i < triangles; i++) {
    const at = 84 + 50 * i
    const x = i * 0.01
    // normal (0, 0, 1), then three vertices
    const values = [0, 0, 1, x, 0, 0, x + 0.01, 0, 0, x, 0.01, 0]
    values.forEach((v, k) => {
      buffer.writeFloatLE(v, at + 4 * k)
    })
  }
  return buffer
}

/** A file the server accepts as GLB (by name and magic number) whose conversion fails at once. */
export function brokenGlb(): Buffer {
  return Buffer.concat([Buffer.from('glTF'), Buffer.alloc(64, 7)])
}

/** Slows every request body of the page to `bytesPerSecond` (-1: no limit). */
export async function throttleUploads(cdp: CDPSession, bytesPerSecond: number): Promise<void> {
  await cdp.send('Network.enable')
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: bytesPerSecond,
  })
}

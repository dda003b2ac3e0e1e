// The counts STL and PLY headers declare, checked against the file's bytes before three's loaders
// trust them: the binary STL loader allocates its arrays from the header's triangle count, and
// the PLY loader loops over each element's declared count (for an element without properties,
// 2^31 times without reading a byte). A file must hold at least what its header announces.
import { formatBytes } from '../declared.ts'
import { ConversionError } from '../types.ts'

const STL_HEADER_BYTES = 84
const STL_FACET_BYTES = 50

/** A binary STL whose triangle count needs more bytes than the file has (three's binary test). */
export function checkStlHeader(bytes: Uint8Array): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const triangles = view.getUint32(80, true)
  const needed = STL_HEADER_BYTES + triangles * STL_FACET_BYTES
  if (needed <= bytes.byteLength || isAsciiStl(bytes)) return
  throw new ConversionError(
    `the STL file is cut off: its header declares ${triangles} triangles (${formatBytes(needed)}), the file has ${formatBytes(bytes.byteLength)}`,
  )
}

/** As three's STLLoader decides: "solid" within the first bytes (after a byte order mark). */
function isAsciiStl(bytes: Uint8Array): boolean {
  const at = new TextDecoder('latin1').decode(bytes.subarray(0, 10)).indexOf('solid')
  return at >= 0 && at < 5
}

const PLY_TYPE_BYTES: Record<string, number> = {
  char: 1,
  uchar: 1,
  int8: 1,
  uint8: 1,
  short: 2,
  ushort: 2,
  int16: 2,
  uint16: 2,
  int: 4,
  uint: 4,
  int32: 4,
  uint32: 4,
  float: 4,
  float32: 4,
  double: 8,
  float64: 8,
}

/** Header lines are short: a header is found in the first 64 KiB or the file is not PLY. */
const PLY_HEADER_MAX = 64 * 1024

/**
 * A PLY file whose elements, at the least bytes each can take (binary: the scalar properties'
 * sizes and the lists' count fields; ASCII: one digit and one separator per property; an element
 * without properties: one byte), need more than the bytes after its header.
 */
export function checkPlyHeader(bytes: Uint8Array): void {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, PLY_HEADER_MAX))
  const end = /end_header\r?\n/.exec(head)
  if (!end) return // three's loader reports what is wrong
  const body = bytes.byteLength - (end.index + end[0].length)
  const binary = /^format\s+binary/m.test(head.slice(0, end.index))
  let needed = 0
  let element: { name: string; count: number; least: number } | undefined
  const close = (): void => {
    if (element) needed += element.count * Math.max(1, element.least)
  }
  for (const line of head.slice(0, end.index).split(/\r?\n/)) {
    const words = line.trim().split(/\s+/)
    if (words[0] === 'element') {
      close()
      const count = Number.parseInt(words[2] ?? '', 10)
      element = { name: words[1] ?? '', count: Number.isFinite(count) && count > 0 ? count : 0, least: 0 }
    } else if (words[0] === 'property' && element) {
      const sizeType = words[1] === 'list' ? words[2] : words[1]
      element.least += binary ? (PLY_TYPE_BYTES[sizeType ?? ''] ?? 1) : 2
    }
  }
  close()
  // The last ASCII value needs no separator after it.
  if (needed > body + (binary ? 0 : 1)) {
    throw new ConversionError(
      `the PLY file is cut off: its header declares elements of at least ${formatBytes(needed)}, ${formatBytes(body)} follow it`,
    )
  }
}

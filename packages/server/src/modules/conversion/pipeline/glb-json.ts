// Final GLB touch-up: glTF-Transform's writer spells out properties whose value is the spec's
// default (`"byteOffset":0`, `"normalized":false`, `"wrapS":10497`, …). Dropping them changes
// nothing for any loader and pays for the `tesseraId` extras we add to every node.
const GLB_HEADER_BYTES = 12
const CHUNK_HEADER_BYTES = 8
const JSON_CHUNK_TYPE = 0x4e4f534a

type JsonObject = Record<string, unknown>

/** Defaults (glTF 2.0 schema) removed from each object of a top-level array; never inside extensions. */
const DEFAULTS: Record<string, ReadonlyArray<[string, unknown]>> = {
  accessors: [
    ['byteOffset', 0],
    ['normalized', false],
  ],
  bufferViews: [['byteOffset', 0]],
  samplers: [
    ['wrapS', 10497],
    ['wrapT', 10497],
  ],
  materials: [
    ['doubleSided', false],
    ['alphaMode', 'OPAQUE'],
    ['alphaCutoff', 0.5],
  ],
  meshes: [],
}

export function compactGlbJson(glb: Uint8Array): Uint8Array {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength)
  const jsonLength = view.getUint32(GLB_HEADER_BYTES, true)
  if (view.getUint32(GLB_HEADER_BYTES + 4, true) !== JSON_CHUNK_TYPE) return glb
  const jsonStart = GLB_HEADER_BYTES + CHUNK_HEADER_BYTES
  const json = JSON.parse(
    new TextDecoder().decode(glb.subarray(jsonStart, jsonStart + jsonLength)),
  ) as JsonObject
  for (const [arrayName, defaults] of Object.entries(DEFAULTS)) {
    const items = json[arrayName]
    if (!Array.isArray(items)) continue
    for (const item of items as JsonObject[]) {
      for (const [key, value] of defaults) if (item[key] === value) delete item[key]
      if (arrayName === 'materials') dropEmptyObject(item, 'pbrMetallicRoughness')
      if (arrayName === 'meshes' && Array.isArray(item.primitives)) {
        for (const primitive of item.primitives as JsonObject[]) dropDefaultMode(primitive)
      }
    }
  }
  // JSON chunk: padded with spaces to 4 bytes (GLB spec); the BIN chunk after it is copied as is.
  const text = new TextEncoder().encode(JSON.stringify(json))
  const paddedLength = Math.ceil(text.byteLength / 4) * 4
  const rest = glb.subarray(jsonStart + jsonLength)
  const out = new Uint8Array(jsonStart + paddedLength + rest.byteLength)
  const outView = new DataView(out.buffer)
  out.set(glb.subarray(0, GLB_HEADER_BYTES))
  outView.setUint32(8, out.byteLength, true)
  outView.setUint32(GLB_HEADER_BYTES, paddedLength, true)
  outView.setUint32(GLB_HEADER_BYTES + 4, JSON_CHUNK_TYPE, true)
  out.set(text, jsonStart)
  out.fill(0x20, jsonStart + text.byteLength, jsonStart + paddedLength)
  out.set(rest, jsonStart + paddedLength)
  return out
}

function dropEmptyObject(owner: JsonObject, key: string): void {
  const value = owner[key]
  if (typeof value === 'object' && value !== null && Object.keys(value).length === 0) delete owner[key]
}

/** `mode` defaults to 4 (TRIANGLES). */
function dropDefaultMode(primitive: JsonObject): void {
  if (primitive.mode === 4) delete primitive.mode
}

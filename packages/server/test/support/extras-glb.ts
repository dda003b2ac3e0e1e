// A small GLB written by hand, for the SDK's and the CLI's tests (packages/client, packages/cli),
// which have no glTF library: a scene with one group node whose children are triangles, each with
// a mesh of its own and glTF `extras`, the properties the conversion reads (docs/api.md, "Model
// properties").

interface GlbNode {
  name: string
  extras?: Record<string, unknown>
}

/** `group` (with `groupExtras`) holding `children`, each a one-triangle mesh named `<name> mesh`. */
export function groupGlb(
  group: string,
  children: GlbNode[],
  groupExtras?: Record<string, unknown>,
): Uint8Array<ArrayBuffer> {
  const positions = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0])
  const bin = Buffer.from(positions.buffer)
  const json = {
    asset: { version: '2.0' },
    scene: 0,
    scenes: [{ name: 'Scene', nodes: [0] }],
    nodes: [
      {
        name: group,
        children: children.map((_, i) => i + 1),
        ...(groupExtras ? { extras: groupExtras } : {}),
      },
      ...children.map((child, i) => ({
        name: child.name,
        mesh: i,
        translation: [i * 2, 0, 0],
        ...(child.extras ? { extras: child.extras } : {}),
      })),
    ],
    meshes: children.map((child) => ({
      name: `${child.name} mesh`,
      primitives: [{ attributes: { POSITION: 0 }, material: 0 }],
    })),
    materials: [{ name: 'Steel' }],
    accessors: [
      { bufferView: 0, componentType: 5126, count: 3, type: 'VEC3', min: [0, 0, 0], max: [1, 1, 0] },
    ],
    bufferViews: [{ buffer: 0, byteLength: bin.length }],
    buffers: [{ byteLength: bin.length }],
  }
  return new Uint8Array(glb(json, bin))
}

/** The binary container: a 12-byte header, the JSON chunk (space-padded), the BIN chunk (zero-padded). */
function glb(json: unknown, bin: Buffer): Buffer {
  const pad = (data: Buffer, byte: number) =>
    Buffer.concat([data, Buffer.alloc((4 - (data.length % 4)) % 4, byte)])
  const text = pad(Buffer.from(JSON.stringify(json)), 0x20)
  const data = pad(bin, 0)
  const chunk = (body: Buffer, type: number) => {
    const head = Buffer.alloc(8)
    head.writeUInt32LE(body.length, 0)
    head.writeUInt32LE(type, 4)
    return Buffer.concat([head, body])
  }
  const chunks = Buffer.concat([chunk(text, 0x4e4f534a), chunk(data, 0x004e4942)])
  const header = Buffer.alloc(12)
  header.writeUInt32LE(0x46546c67, 0)
  header.writeUInt32LE(2, 4)
  header.writeUInt32LE(12 + chunks.length, 8)
  return Buffer.concat([header, chunks])
}

// STL, PLY and OBJ (without a material library) through three's loaders, which parse in Node.
import path from 'node:path'
import type { Document } from '@gltf-transform/core'
import { type BufferGeometry, type Group, Mesh, MeshStandardMaterial, type Object3D, Points } from 'three'
import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js'
import { PLYLoader } from 'three/examples/jsm/loaders/PLYLoader.js'
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js'
import { ConversionError, type Importer, type ModelInput } from '../types.ts'
import { extensionOf } from '../unpack.ts'
import { checkPlyHeader, checkStlHeader } from './mesh-bounds.ts'
import { documentFromThree } from './three-to-gltf.ts'

export const importMesh: Importer = async (input) => {
  const extension = extensionOf(input.name)
  const stem = path.posix.basename(input.name, path.posix.extname(input.name))
  if (extension === '.stl') return importStl(input, stem)
  if (extension === '.ply') return importPly(input, stem)
  if (extension === '.obj') return importObj(input, stem)
  throw new ConversionError(`unsupported format: ${extension}`)
}

function arrayBufferOf(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
}

/** STL holds one triangle soup: one node, named after the file. */
function importStl(input: ModelInput, stem: string): Document {
  // Shorter than a binary STL header + count; no ASCII facet fits either (three's loader would throw).
  if (input.bytes.byteLength < 84) throw new ConversionError('the STL file holds no triangles')
  checkStlHeader(input.bytes)
  let geometry: BufferGeometry
  try {
    geometry = new STLLoader().parse(arrayBufferOf(input.bytes))
  } catch {
    throw new ConversionError('the STL file cannot be read')
  }
  const triangles = (geometry.getAttribute('position')?.count ?? 0) / 3
  if (!(triangles >= 1)) throw new ConversionError('the STL file holds no triangles')
  const mesh = new Mesh(geometry, new MeshStandardMaterial({ color: 0xcccccc }))
  mesh.name = stem
  // STL normals are per-facet (and often zero or unnormalized); without them glTF viewers compute
  // exactly those flat normals, and welding can share every corner: a much smaller file.
  return documentFromThree(mesh, { dropNormals: true })
}

/** PLY: a mesh when it has faces, otherwise a point cloud. */
function importPly(input: ModelInput, stem: string): Document {
  checkPlyHeader(input.bytes)
  let geometry: BufferGeometry
  try {
    geometry = new PLYLoader().parse(arrayBufferOf(input.bytes))
  } catch {
    throw new ConversionError('the PLY file cannot be read')
  }
  const vertices = geometry.getAttribute('position')?.count ?? 0
  if (!(vertices >= 1)) throw new ConversionError('the PLY file holds no vertices')
  const object: Object3D = geometry.index
    ? new Mesh(geometry, new MeshStandardMaterial())
    : new Points(geometry, new MeshStandardMaterial())
  object.name = stem
  return documentFromThree(object)
}

/** OBJ: its objects and groups become child nodes of a root named after the file. */
function importObj(input: ModelInput, stem: string): Document {
  // OBJ is text; three's loader would log a warning for every line of a binary file.
  if (input.bytes.subarray(0, 64 * 1024).includes(0))
    throw new ConversionError('the OBJ file is not a text file')
  let group: Group
  try {
    group = new OBJLoader().parse(new TextDecoder().decode(input.bytes))
  } catch {
    throw new ConversionError('the OBJ file cannot be read')
  }
  let vertices = 0
  group.traverse((object) => {
    if (object instanceof Mesh || object instanceof Points) {
      vertices += (object.geometry as BufferGeometry).getAttribute('position')?.count ?? 0
    }
  })
  if (vertices === 0) throw new ConversionError('the OBJ file holds no geometry')
  group.name = stem
  return documentFromThree(group)
}

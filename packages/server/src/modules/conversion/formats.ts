// Which uploads can be converted, told from the name and the first bytes (and, for a zip, the names
// in its directory), so that the upload route refuses the rest with 415 before keeping anything.
// A file that passes can still fail to parse: that ends in `error` with the importer's reason.
import type { StoredBytesReader, UploadFormatPolicy } from '../files/index.ts'
import { extensionOf, MODEL_FORMATS } from './pipeline/unpack.ts'
import { zipEntryNames } from './zip-directory.ts'

const HEAD_BYTES = 4096

type HeadCheck = (head: Uint8Array) => boolean

const ascii = (head: Uint8Array, length: number) => String.fromCharCode(...head.subarray(0, length))
const startsWith =
  (prefix: string): HeadCheck =>
  (head) =>
    ascii(head, prefix.length) === prefix
/** Text formats: no NUL byte in the head (binary data nearly always has one within 4 KiB). */
const isText: HeadCheck = (head) => !head.includes(0)
/** The first character after a UTF-8 BOM and white space. */
const firstChar = (head: Uint8Array): string =>
  new TextDecoder()
    .decode(head.subarray(0, 256))
    .replace(/^\uFEFF?\s*/, '')
    .charAt(0)
const isStep: HeadCheck = (head) =>
  isText(head) &&
  new TextDecoder()
    .decode(head.subarray(0, 256))
    .replace(/^\uFEFF?\s*/, '')
    .startsWith('ISO-10303-21')
const isZip = startsWith('PK\u0003\u0004')

/** What each extension's content must look like; `what` names it in the refusal. */
const MAGIC: Record<string, { check: HeadCheck; what: string }> = {
  '.glb': { check: startsWith('glTF'), what: 'a binary glTF (starting with "glTF")' },
  '.gltf': { check: (head) => isText(head) && firstChar(head) === '{', what: 'a glTF JSON document' },
  // A binary STL starts with 80 free bytes: any head may be one; the importer decides.
  '.stl': { check: () => true, what: 'an STL file' },
  '.ply': { check: startsWith('ply'), what: 'a PLY file (starting with "ply")' },
  '.obj': { check: isText, what: 'a text OBJ file' },
  '.fbx': { check: (head) => startsWith('Kaydara FBX Binary')(head) || isText(head), what: 'an FBX file' },
  '.3mf': { check: isZip, what: 'a 3MF package (a zip)' },
  '.3ds': { check: (head) => head[0] === 0x4d && head[1] === 0x4d, what: 'a 3DS file' },
  '.dae': { check: (head) => isText(head) && firstChar(head) === '<', what: 'a COLLADA XML document' },
  '.step': { check: isStep, what: 'a STEP file (starting with "ISO-10303-21")' },
  '.stp': { check: isStep, what: 'a STEP file (starting with "ISO-10303-21")' },
  '.iges': { check: isText, what: 'a text IGES file' },
  '.igs': { check: isText, what: 'a text IGES file' },
  '.brep': { check: isText, what: 'a text OpenCascade BREP file' },
  '.ifc': { check: isStep, what: 'an IFC STEP file (starting with "ISO-10303-21")' },
  '.zip': { check: (head) => isZip(head) || startsWith('PK\u0005\u0006')(head), what: 'a zip archive' },
}

const SUPPORTED = `Supported formats: ${[...MODEL_FORMATS.keys()].join(', ')}, or a .zip holding one model of these.`

function checkHead(name: string, head: Uint8Array): string | null {
  const extension = extensionOf(name)
  const magic = MAGIC[extension]
  if (!magic || (extension !== '.zip' && !MODEL_FORMATS.has(extension))) {
    return `unsupported format: ${extension || '(no file extension)'}`
  }
  // An empty file is no format at all; the conversion says "the model file is empty".
  if (head.byteLength === 0 || magic.check(head)) return null
  return `the content of ${name} is not ${magic.what}`
}

async function checkStored(name: string, size: number, read: StoredBytesReader): Promise<string | null> {
  if (extensionOf(name) !== '.zip') return null
  const names = await zipEntryNames(size, read)
  // No readable directory (cut off, damaged): the conversion tries and says what is wrong.
  if (names === null) return null
  if (names.some((entry) => MODEL_FORMATS.has(extensionOf(entry)))) return null
  return 'the zip holds no supported model file'
}

export const uploadFormatPolicy: UploadFormatPolicy = {
  headBytes: HEAD_BYTES,
  checkHead,
  checkStored,
  supported: SUPPORTED,
}

// FBX, 3MF, 3DS, DAE and OBJ with its MTL and textures, through assimp compiled to wasm
// (assimpjs): it converts the file list to GLB, which we read back with the pipeline's IO.
import { createRequire } from 'node:module'
import { pipelineIO } from '../io.ts'
import { ConversionError, type Importer } from '../types.ts'
import { extensionOf } from '../unpack.ts'
import { parseGlb, readWithSideFiles, uploadBytes } from './gltf.ts'

/** The part of assimpjs' embind API we use (the package ships no type declarations). */
interface AssimpModule {
  FileList: new () => AssimpFileList
  ConvertFileList(files: AssimpFileList, format: 'glb2'): AssimpResult
}
interface AssimpFileList {
  AddFile(name: string, content: Uint8Array): void
  delete(): void
}
interface AssimpResult {
  IsSuccess(): boolean
  GetErrorCode(): string
  FileCount(): number
  GetFile(index: number): { GetContent(): Uint8Array }
  delete(): void
}

/** The wasm module, initialized once per process (~40 ms). */
let assimpPromise: Promise<AssimpModule> | undefined

function loadAssimp(): Promise<AssimpModule> {
  assimpPromise ??= (createRequire(import.meta.url)('assimpjs') as () => Promise<AssimpModule>)()
  return assimpPromise
}

const FORMAT_NAMES: Record<string, string> = {
  '.fbx': 'FBX',
  '.3mf': '3MF',
  '.3ds': '3DS',
  '.dae': 'COLLADA',
  '.obj': 'OBJ',
}

export const importAssimp: Importer = async (input) => {
  const assimp = await loadAssimp()
  const formatName = FORMAT_NAMES[extensionOf(input.name)] ?? 'model'
  const glb = convertToGlb(assimp, input.name, input.bytes, input.files, formatName)
  const io = await pipelineIO()
  // assimp leaves textures as URIs of the files the model names: resolve them from the upload.
  const { json, bin } = parseGlb(glb)
  return readWithSideFiles(io, json, bin, input.files, uploadBytes(glb, input.files))
}

function convertToGlb(
  assimp: AssimpModule,
  name: string,
  bytes: Uint8Array,
  sideFiles: ReadonlyMap<string, Uint8Array>,
  formatName: string,
): Uint8Array {
  const fileList = new assimp.FileList()
  try {
    // assimp picks the first file it can import as the model, so the main file goes first; side
    // files keep their relative paths, which is how MTL files and FBX/DAE textures name them.
    fileList.AddFile(name, bytes)
    for (const [sidePath, sideBytes] of sideFiles) fileList.AddFile(sidePath, sideBytes)
    const result = assimp.ConvertFileList(fileList, 'glb2')
    try {
      const output = result.IsSuccess() && result.FileCount() > 0 ? result.GetFile(0).GetContent() : undefined
      if (!output || output.byteLength === 0) {
        throw new ConversionError(`the ${formatName} file cannot be read`)
      }
      // The content is a view of wasm memory, reused by the next call: copy it out.
      return output.slice()
    } finally {
      result.delete()
    }
  } finally {
    fileList.delete()
  }
}

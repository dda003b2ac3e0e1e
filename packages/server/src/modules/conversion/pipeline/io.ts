// The pipeline's one glTF reader/writer: every Khronos/EXT extension glTF-Transform knows, the
// meshopt codec always (we write EXT_meshopt_compression and may read it), and the Draco decoder
// only when an input needs it — loading its wasm costs ~100 ms we don't want to pay per job.
import { createRequire } from 'node:module'
import { Logger, NodeIO } from '@gltf-transform/core'
import { ALL_EXTENSIONS } from '@gltf-transform/extensions'
import { MeshoptDecoder, MeshoptEncoder, MeshoptSimplifier } from 'meshoptimizer'
import { ConversionError } from './types.ts'

/**
 * glTF-Transform logs each step at INFO to the console; a conversion's stdout is not a log, and
 * user-facing problems surface as ConversionError, so only errors are printed.
 */
export const pipelineLogger = new Logger(Logger.Verbosity.ERROR)

let ioPromise: Promise<NodeIO> | undefined
let dracoPromise: Promise<unknown> | undefined

/**
 * The shared NodeIO. It has no fetch function, so a glTF's `http(s)://` URIs are never followed:
 * a conversion only ever reads the bytes it was given.
 */
export function pipelineIO(): Promise<NodeIO> {
  ioPromise ??= Promise.all([MeshoptDecoder.ready, MeshoptEncoder.ready, MeshoptSimplifier.ready]).then(() =>
    new NodeIO()
      .setLogger(pipelineLogger)
      .registerExtensions(ALL_EXTENSIONS)
      .registerDependencies({ 'meshopt.decoder': MeshoptDecoder, 'meshopt.encoder': MeshoptEncoder }),
  )
  return ioPromise
}

interface DracoModuleFactory {
  createDecoderModule(): Promise<unknown>
  createEncoderModule(): Promise<unknown>
}

let dracoEncoderPromise: Promise<unknown> | undefined

/**
 * Registers the Draco decoder on the shared IO. `draco3dgltf` is loaded by name at run time (it has
 * no type declarations, and only Draco-compressed inputs need it).
 */
export async function enableDracoDecoding(io: NodeIO): Promise<void> {
  dracoPromise ??= loadDracoDecoder()
  io.registerDependencies({ 'draco3d.decoder': await dracoPromise })
}

/** Registers the Draco encoder: only a Draco input is offered a Draco output (encode.ts). */
export async function enableDracoEncoding(io: NodeIO): Promise<void> {
  dracoEncoderPromise ??= dracoFactory().createEncoderModule()
  io.registerDependencies({ 'draco3d.encoder': await dracoEncoderPromise })
}

async function loadDracoDecoder(): Promise<unknown> {
  return dracoFactory().createDecoderModule()
}

function dracoFactory(): DracoModuleFactory {
  try {
    return createRequire(import.meta.url)('draco3dgltf') as DracoModuleFactory
  } catch {
    throw new ConversionError('Draco-compressed glTF is not supported by this server')
  }
}

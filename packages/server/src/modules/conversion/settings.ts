// The settings modules/conversion/ owns: the conversion workers' budgets and output. Declared here,
// assembled and parsed once at start-up with every other owner's by app/config.ts
// (platform/settings.ts describes the shape).
import { duration, integer, type Setting, size } from '../../platform/settings.ts'

declare module '../../platform/config.ts' {
  interface Config {
    conversionTimeoutMs: number
    /** Real memory (resident set) of one conversion process, bytes; its V8 heap limit is the same. */
    conversionMaxMemoryBytes: number
    /** Conversions run at once by one worker process. */
    conversionConcurrency: number
    /** Conversions one account may have running at once, across every worker process; 0: no limit. */
    conversionAccountConcurrency: number
    /** `webp`: converted textures stored as WebP when smaller; `keep`: PNG/JPEG kept. */
    conversionTextures: 'webp' | 'keep'
  }
}

export const conversionSettings = [
  {
    name: 'TESSERA_CONVERSION_TIMEOUT',
    key: 'conversionTimeoutMs',
    default: '10m',
    help: 'time budget of one conversion',
    parse: duration(1000),
  },
  {
    name: 'TESSERA_CONVERSION_MAX_MEMORY',
    key: 'conversionMaxMemoryBytes',
    default: '4GiB',
    help: 'memory (resident set) one conversion process may use; past it the conversion is killed and fails',
    // A small STL already takes ~140 MB resident (Node, glTF-Transform, meshoptimizer), a small STEP
    // ~340 MB (OpenCascade's wasm): below this no conversion of any format could run.
    parse: size(512 * 1024 * 1024, '512MiB'),
  },
  {
    name: 'TESSERA_CONVERSION_CONCURRENCY',
    key: 'conversionConcurrency',
    default: '1',
    help: 'conversions one worker process runs at once (each in its own child process)',
    parse: integer(1, 64),
  },
  {
    name: 'TESSERA_CONVERSION_ACCOUNT_CONCURRENCY',
    key: 'conversionAccountConcurrency',
    default: '0',
    help: 'conversions one account may have running at once across all workers (0 = no limit; a slot stays free for others)',
    parse: integer(0, 1024),
  },
  {
    // Read by the conversion's child process from its inherited environment (pipeline/textures.ts).
    name: 'TESSERA_CONVERSION_TEXTURES',
    key: 'conversionTextures',
    default: 'webp',
    help: 'webp: textures re-encoded as WebP when smaller; keep: PNG/JPEG kept (viewers without WebP)',
    parse: (raw) => {
      const mode = raw.trim().toLowerCase()
      if (mode !== 'webp' && mode !== 'keep') throw new Error(`"${raw}" is not webp or keep`)
      return mode
    },
  },
] satisfies Setting[]

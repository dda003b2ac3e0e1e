// The settings modules/configurations/ owns: the per-file limits of configurations. Declared here,
// assembled and parsed once at start-up with every other owner's by app/config.ts
// (platform/settings.ts describes the shape).
import { integer, type Setting, size } from '../../platform/settings.ts'

declare module '../../platform/config.ts' {
  interface Config {
    /** Configurations one file may hold. */
    fileMaxConfigurations: number
    /** Bytes of the stored text and JSON of one file's configurations. */
    fileMaxConfigurationBytes: number
  }
}

export const configurationSettings = [
  {
    name: 'TESSERA_FILE_MAX_CONFIGURATIONS',
    key: 'fileMaxConfigurations',
    default: '10000',
    help: 'configurations per file (more: 409 FILE_ITEMS_LIMIT_REACHED)',
    parse: integer(1, 1_000_000),
  },
  {
    name: 'TESSERA_FILE_MAX_CONFIGURATION_BYTES',
    key: 'fileMaxConfigurationBytes',
    default: '64MiB',
    help: 'bytes of one file’s configurations, stored text and JSON (more: 413 FILE_ITEMS_TOO_LARGE)',
    parse: size(1024, '1KiB'),
  },
] satisfies Setting[]

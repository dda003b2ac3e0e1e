// The settings modules/annotations/ owns: the per-file limits of annotations. Declared here, assembled
// and parsed once at start-up with every other owner's by app/config.ts (platform/settings.ts
// describes the shape).
import { integer, type Setting, size } from '../../platform/settings.ts'

declare module '../../platform/config.ts' {
  interface Config {
    /** Annotations one file may hold. */
    fileMaxAnnotations: number
    /** Bytes of the stored text and JSON of one file's annotations. */
    fileMaxAnnotationBytes: number
  }
}

export const annotationSettings = [
  {
    name: 'TESSERA_FILE_MAX_ANNOTATIONS',
    key: 'fileMaxAnnotations',
    default: '10000',
    help: 'annotations per file (more: 409 FILE_ITEMS_LIMIT_REACHED)',
    parse: integer(1, 1_000_000),
  },
  {
    name: 'TESSERA_FILE_MAX_ANNOTATION_BYTES',
    key: 'fileMaxAnnotationBytes',
    default: '64MiB',
    help: 'bytes of one file’s annotations, stored text and JSON (more: 413 FILE_ITEMS_TOO_LARGE)',
    parse: size(1024, '1KiB'),
  },
] satisfies Setting[]

// Messages between the conversion worker and its child process (child.ts), over Node's IPC channel.
import type { ConversionResult, TreeNode } from './pipeline/types.ts'

export interface ChildRequest {
  inputPath: string
  /** The uploaded file's name: its extension picks the importer. */
  name: string
  outputPath: string
  /** Where the PNG thumbnail goes (written after the GLB). */
  thumbnailPath: string
  /** Where the nodes' properties go, one JSON line per node (pipeline/node-properties.ts). */
  propertiesPath: string
}

export type ChildMessage =
  | { type: 'progress'; percent: number }
  | {
      type: 'converted'
      tree: TreeNode[]
      stats: ConversionResult['stats']
      propertiesTruncated: string[]
      /** Why no thumbnail could be made (a bug: logged, the conversion still counts); null when made. */
      thumbnailError: string | null
      /** Peak resident memory of the child, in KiB (process.resourceUsage().maxRSS). */
      maxRssKb: number
    }
  /** The input cannot be converted (ConversionError): final, `reason` is shown to the user. */
  | { type: 'rejected'; reason: string }
  /** A bug or an environment problem: final, logged with `detail`, never shown to the user. */
  | { type: 'failed'; detail: string }

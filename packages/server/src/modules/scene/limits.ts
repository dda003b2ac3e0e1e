// Caps on scene attributes, checked on every write before anything is stored: per node (count and
// bytes), per file (count and bytes, against the running totals in scene_attribute_totals) and per
// request (nodes named, and bytes of those nodes once written: what the write stores and answers).
// A cap only refuses growth: a write that shrinks a node or file already past a (lowered) cap passes.
// Bytes are UTF-8 bytes of the attribute name plus the JSON text of its value, as stored.
import type { Config } from '../../platform/config.ts'
import { AppError } from '../../platform/errors.ts'
import type { AttributeWrite } from './repository.ts'

export type SceneLimits = Pick<
  Config,
  | 'sceneNodeMaxAttributes'
  | 'sceneNodeMaxBytes'
  | 'sceneFileMaxAttributes'
  | 'sceneFileMaxBytes'
  | 'sceneWriteMaxNodes'
  | 'sceneWriteMaxBytes'
>

export function attributeBytes(name: string, json: string): number {
  return Buffer.byteLength(name) + Buffer.byteLength(json)
}

function refuse(
  code: 'SCENE_NODE_TOO_LARGE' | 'SCENE_FILE_TOO_LARGE' | 'SCENE_WRITE_TOO_LARGE',
  detail: string,
) {
  return new AppError(code, detail)
}

/** Turns a write into upserts and removals, node by node, checking the caps as it goes. */
export class WritePlanner {
  readonly upserts: AttributeWrite[] = []
  readonly removals: { node_id: string; name: string }[] = []
  attributesDelta = 0
  bytesDelta = 0
  #writeBytes = 0

  private readonly limits: SceneLimits
  private readonly written: Record<string, Record<string, unknown>>

  constructor(limits: SceneLimits, written: Record<string, Record<string, unknown>>) {
    this.limits = limits
    this.written = written
    const nodes = Object.keys(written).length
    if (nodes > limits.sceneWriteMaxNodes) {
      throw refuse(
        'SCENE_WRITE_TOO_LARGE',
        `This write names ${nodes} nodes; the limit is ${limits.sceneWriteMaxNodes} (TESSERA_SCENE_WRITE_MAX_NODES).`,
      )
    }
  }

  /** Plans the given nodes, from their stored attributes (name and JSON text). */
  addNodes(
    nodeIds: readonly string[],
    stored: readonly { node_id: string; name: string; value: string }[],
  ): void {
    const current = new Map<string, Map<string, number>>()
    for (const id of nodeIds) current.set(id, new Map())
    for (const row of stored) current.get(row.node_id)?.set(row.name, attributeBytes(row.name, row.value))
    for (const id of nodeIds) this.#addNode(id, current.get(id) ?? new Map())
  }

  #addNode(nodeId: string, sizes: Map<string, number>): void {
    const beforeCount = sizes.size
    const beforeBytes = sum(sizes)
    for (const [name, value] of Object.entries(this.written[nodeId] ?? {})) {
      if (value === null) {
        sizes.delete(name)
        this.removals.push({ node_id: nodeId, name })
      } else {
        const json = JSON.stringify(value)
        sizes.set(name, attributeBytes(name, json))
        this.upserts.push({ node_id: nodeId, name, value: json })
      }
    }
    const afterBytes = sum(sizes)
    const shown = JSON.stringify(nodeId)
    const { sceneNodeMaxAttributes: maxCount, sceneNodeMaxBytes: maxBytes } = this.limits
    if (sizes.size > maxCount && sizes.size > beforeCount) {
      throw refuse(
        'SCENE_NODE_TOO_LARGE',
        `Node ${shown} would hold ${sizes.size} attributes; the limit is ${maxCount} (TESSERA_SCENE_NODE_MAX_ATTRIBUTES).`,
      )
    }
    if (afterBytes > maxBytes && afterBytes > beforeBytes) {
      throw refuse(
        'SCENE_NODE_TOO_LARGE',
        `Node ${shown} would hold ${afterBytes} bytes of attributes; the limit is ${maxBytes} (TESSERA_SCENE_NODE_MAX_BYTES).`,
      )
    }
    this.#writeBytes += afterBytes
    if (this.#writeBytes > this.limits.sceneWriteMaxBytes) {
      throw refuse(
        'SCENE_WRITE_TOO_LARGE',
        `The nodes of this write would hold more than ${this.limits.sceneWriteMaxBytes} bytes of attributes ` +
          `(${this.#writeBytes} so far); the limit is ${this.limits.sceneWriteMaxBytes} (TESSERA_SCENE_WRITE_MAX_BYTES).`,
      )
    }
    this.attributesDelta += sizes.size - beforeCount
    this.bytesDelta += afterBytes - beforeBytes
  }

  /** Checks the file's totals once every node is planned. */
  checkFile(totals: { attributes: number; bytes: number }): void {
    const attributes = totals.attributes + this.attributesDelta
    const bytes = totals.bytes + this.bytesDelta
    const { sceneFileMaxAttributes: maxCount, sceneFileMaxBytes: maxBytes } = this.limits
    if (this.attributesDelta > 0 && attributes > maxCount) {
      throw refuse(
        'SCENE_FILE_TOO_LARGE',
        `This file would hold ${attributes} scene attributes; the limit is ${maxCount} (TESSERA_SCENE_FILE_MAX_ATTRIBUTES).`,
      )
    }
    if (this.bytesDelta > 0 && bytes > maxBytes) {
      throw refuse(
        'SCENE_FILE_TOO_LARGE',
        `This file would hold ${bytes} bytes of scene attributes; the limit is ${maxBytes} (TESSERA_SCENE_FILE_MAX_BYTES).`,
      )
    }
  }
}

function sum(sizes: Map<string, number>): number {
  let total = 0
  for (const size of sizes.values()) total += size
  return total
}

// BCF components to the nodes of a file's scene: by IFC GlobalId (the `IFC` group's `GlobalId`
// property), or, for a component Tessera wrote for a node without one, by the node ID it carries
// (OriginatingSystem "Tessera", AuthoringToolId the node ID: the same model converts to the same IDs,
// docs/conversion.md). What the model does not have is reported, once each.
import type { Executor } from '../../platform/db/index.ts'
import { existingNodeIds, modelOriginShift, nodesOfGlobalIds, sceneParents } from '../scene/index.ts'
import { NO_SHIFT } from './geometry.ts'
import type { BcfComponent, BcfPackage, BcfViewpoint, Vec3 } from './model.ts'

/** Where a node's component says it came from when it has no GlobalId (export.ts writes it). */
export const TESSERA_SYSTEM = 'Tessera'
/** Unknown components listed in an import's answer. */
const MAX_UNKNOWN = 1000

export interface Components {
  nodeOf(component: BcfComponent): string | undefined
  /** The nodes hidden in a viewpoint: its exceptions, or everything but them when hidden by default. */
  hiddenIn(viewpoint: BcfViewpoint): string[]
  unknown: string[]
  /** How far the conversion moved the model (geometry.ts): BCF positions are the file's own. */
  shift: Vec3
}

const isTessera = (c: BcfComponent) =>
  c.originatingSystem === TESSERA_SYSTEM && c.authoringToolId !== undefined

/** The topmost nodes to hide so that exactly `visible`, their subtrees and their ancestors show. */
function hideAllBut(visible: Set<string>, parents: Map<string, string | null>): string[] {
  const shown = new Set<string>()
  for (const node of visible) {
    for (let n: string | null | undefined = node; n && !shown.has(n); n = parents.get(n)) shown.add(n)
  }
  const covered = new Map<string, boolean>()
  const isCovered = (node: string): boolean => {
    const path: string[] = []
    let n: string | null | undefined = node
    let answer = false
    for (; n; n = parents.get(n)) {
      const known = covered.get(n)
      if (known !== undefined || visible.has(n)) {
        answer = known ?? true
        break
      }
      path.push(n)
    }
    for (const p of path) covered.set(p, answer)
    return answer
  }
  const hidden: string[] = []
  for (const [node, parent] of parents) {
    if (shown.has(node) || isCovered(node)) continue
    if (parent === null || shown.has(parent)) hidden.push(node)
  }
  return hidden
}

export async function resolveComponents(db: Executor, fileId: string, bcf: BcfPackage): Promise<Components> {
  const viewpoints = bcf.topics.flatMap((t) => t.viewpoints)
  const all = viewpoints.flatMap((v) => [...v.selection, ...v.exceptions])
  const guids = [...new Set(all.flatMap((c) => (c.ifcGuid ? [c.ifcGuid] : [])))]
  const ids = [
    ...new Set(all.flatMap((c) => (!c.ifcGuid && isTessera(c) ? [c.authoringToolId as string] : []))),
  ]
  const byGuid = await nodesOfGlobalIds(db, fileId, guids)
  const existing = await existingNodeIds(db, fileId, ids)
  const parents = viewpoints.some((v) => !v.defaultVisibility) ? await sceneParents(db, fileId) : new Map()
  const nodeOf = (c: BcfComponent) => {
    if (c.ifcGuid) return byGuid.get(c.ifcGuid)
    return isTessera(c) && existing.has(c.authoringToolId as string) ? c.authoringToolId : undefined
  }
  const nodes = (list: BcfComponent[]) => [...new Set(list.flatMap((c) => nodeOf(c) ?? []))]
  const unknown = [...guids.filter((g) => !byGuid.has(g)), ...ids.filter((id) => !existing.has(id))].slice(
    0,
    MAX_UNKNOWN,
  )
  return {
    nodeOf,
    hiddenIn: (v) =>
      v.defaultVisibility ? nodes(v.exceptions) : hideAllBut(new Set(nodes(v.exceptions)), parents),
    unknown,
    shift: (await modelOriginShift(db, fileId)) ?? NO_SHIFT,
  }
}

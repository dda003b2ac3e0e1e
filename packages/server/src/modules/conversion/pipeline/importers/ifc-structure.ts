// The IFC spatial structure as a node hierarchy: IfcProject → IfcSite → IfcBuilding →
// IfcBuildingStorey (IfcRelAggregates) → the elements each storey contains
// (IfcRelContainedInSpatialStructure) → their parts (IfcRelAggregates again).
import type { Document, Mesh, mat4, Node } from '@gltf-transform/core'
import { transformMesh } from '@gltf-transform/functions'
import { IFCPROJECT, IFCRELAGGREGATES, IFCRELCONTAINEDINSPATIALSTRUCTURE, type IfcAPI } from 'web-ifc'
import { IDENTITY, invertAffine, isIdentity, isTrs, type Matrix, multiply } from './matrix.ts'

/** A product's mesh, in the frame `frame` (world, column-major) that its node is to be placed at. */
export interface PlacedMesh {
  mesh: Mesh
  frame: Matrix
}

/**
 * Builds the model's hierarchy, attaching each product's mesh to its node. Products with geometry
 * that the spatial structure never reaches (files do have them) become roots, so no geometry is
 * lost. Each node's extras hold the IFC class and GlobalId. Answers the roots, and each product's
 * node by its express ID.
 */
export function addSpatialTree(
  api: IfcAPI,
  modelID: number,
  document: Document,
  meshes: ReadonlyMap<number, PlacedMesh>,
): { roots: Node[]; nodes: Map<number, Node> } {
  const children = childRelations(api, modelID)
  const visited = new Set<number>()
  const nodes = new Map<number, Node>()
  const nodeFor = (expressID: number, parentWorld: Matrix): Node => {
    visited.add(expressID)
    const node = productNode(api, modelID, document, expressID)
    nodes.set(expressID, node)
    const placed = meshes.get(expressID)
    const world = placed ? place(node, placed, parentWorld) : parentWorld
    for (const child of children.get(expressID) ?? []) {
      // A product listed twice (or a cyclic relation) keeps its first place only.
      if (!visited.has(child)) node.addChild(nodeFor(child, world))
    }
    return node
  }
  const roots = idsOfType(api, modelID, IFCPROJECT).map((id) => nodeFor(id, IDENTITY))
  for (const expressID of meshes.keys()) {
    if (!visited.has(expressID)) roots.push(nodeFor(expressID, IDENTITY))
  }
  return { roots, nodes }
}

/**
 * Gives the node its mesh and the transform from its parent's frame to the mesh's; returns the
 * node's world frame. A transform a node cannot carry (shear) is baked into the mesh instead.
 */
function place(node: Node, placed: PlacedMesh, parentWorld: Matrix): Matrix {
  node.setMesh(placed.mesh.setName(node.getName()))
  const local = multiply(invertAffine(parentWorld) ?? IDENTITY, placed.frame)
  if (isIdentity(local)) return parentWorld
  if (isTrs(local)) {
    node.setMatrix(local as unknown as mat4)
    return placed.frame
  }
  transformMesh(placed.mesh, local as unknown as mat4)
  return parentWorld
}

/** Parent → children, storeys and other decompositions before the elements a structure contains. */
function childRelations(api: IfcAPI, modelID: number): Map<number, number[]> {
  const children = new Map<number, number[]>()
  const add = (parent: number | undefined, related: number[]): void => {
    if (parent === undefined) return
    children.set(parent, [...(children.get(parent) ?? []), ...related])
  }
  for (const id of idsOfType(api, modelID, IFCRELAGGREGATES)) {
    const line: unknown = api.GetLine(modelID, id)
    add(reference(field(line, 'RelatingObject')), references(field(line, 'RelatedObjects')))
  }
  for (const id of idsOfType(api, modelID, IFCRELCONTAINEDINSPATIALSTRUCTURE)) {
    const line: unknown = api.GetLine(modelID, id)
    add(reference(field(line, 'RelatingStructure')), references(field(line, 'RelatedElements')))
  }
  return children
}

/** The IDs copied out, and the wasm-side vector freed (embind does not collect it). */
function idsOfType(api: IfcAPI, modelID: number, type: number): number[] {
  const vector = api.GetLineIDsWithType(modelID, type)
  const ids = [...vector]
  ;(vector as { delete?: () => void }).delete?.()
  return ids
}

/** Named by the product's Name; unnamed ones by their class and GlobalId ("IfcWall 2O2Fr$t4X7Zf8NOew3FLOH"). */
function productNode(api: IfcAPI, modelID: number, document: Document, expressID: number): Node {
  const line: unknown = api.GetLine(modelID, expressID)
  const ifcType = api.GetNameFromTypeCode(api.GetLineType(modelID, expressID))
  const globalId = text(field(line, 'GlobalId'))
  const name = text(field(line, 'Name'))?.trim() || `${ifcType} ${globalId ?? `#${expressID}`}`
  const node = document.createNode(name)
  node.setExtras(globalId ? { ifcType, ifcGlobalId: globalId } : { ifcType })
  return node
}

// web-ifc's GetLine returns untyped objects: attributes are { value } wrappers, references
// { type: 5, value: expressID }, lists arrays of those.
function field(line: unknown, key: string): unknown {
  return typeof line === 'object' && line !== null ? (line as Record<string, unknown>)[key] : undefined
}

function text(attribute: unknown): string | undefined {
  const value = field(attribute, 'value')
  return typeof value === 'string' ? value : undefined
}

function reference(attribute: unknown): number | undefined {
  const value = field(attribute, 'value')
  return typeof value === 'number' ? value : undefined
}

function references(attribute: unknown): number[] {
  if (!Array.isArray(attribute)) return []
  return attribute.map(reference).filter((id): id is number => id !== undefined)
}

// A generated building for the model-properties benches (bench:properties): `elements` elements
// in 10 storeys, each with IFC-like properties (identity, a common property set, base quantities
// with units, a layered material, a classification: 26 per element), as a conversion extracts them.
import { createHash } from 'node:crypto'
import type { NodePropertiesInput, SceneNode } from '../../packages/server/src/modules/scene/index.ts'
import {
  propertyGeneration,
  publishSceneProperties,
  replaceSceneTree,
  stageSceneProperties,
} from '../../packages/server/src/modules/scene/index.ts'
import type { Db } from '../../packages/server/src/platform/db/index.ts'

const STOREYS = 10
const CLASSES = [
  'IfcWall',
  'IfcWall',
  'IfcWall',
  'IfcDoor',
  'IfcWindow',
  'IfcSlab',
  'IfcColumn',
  'IfcBeam',
  'IfcBeam',
  'IfcFurnishingElement',
]
const RATINGS = ['REI30', 'REI60', 'REI90', 'REI120']

const idOf = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16)
const elementId = (i: number) => idOf(`element ${i}`)

function tree(elements: number): SceneNode[] {
  const storeys = Array.from({ length: STOREYS }, (_, s) => ({
    id: idOf(`storey ${s}`),
    name: `Level ${s}`,
    children: [] as SceneNode[],
  }))
  for (let i = 0; i < elements; i++) {
    const cls = CLASSES[i % CLASSES.length] ?? 'IfcWall'
    storeys[i % STOREYS]?.children.push({ id: elementId(i), name: `${cls.slice(3)} ${i}`, children: [] })
  }
  return [{ id: idOf('project'), name: 'Estate', children: storeys }]
}

/** One element's properties, shaped like a converted IFC wall's. */
function element(i: number): NodePropertiesInput {
  const cls = CLASSES[i % CLASSES.length] ?? 'IfcWall'
  const bare = cls.slice(3)
  return {
    nodeId: elementId(i),
    groups: {
      IFC: {
        class: cls,
        GlobalId: createHash('md5').update(String(i)).digest('base64url').slice(0, 22),
        Name: `${bare} ${i}`,
        ObjectType: `${bare}:Standard ${i % 40}`,
        Tag: String(100_000 + i),
        PredefinedType: 'STANDARD',
        type: `${bare} type ${i % 40}`,
        typeClass: `${cls}Type`,
        container: `Level ${i % STOREYS}`,
        containerClass: 'IfcBuildingStorey',
      },
      [`Pset_${bare}Common`]: {
        Reference: `${bare.slice(0, 2).toUpperCase()}-${i % 40}`,
        FireRating: RATINGS[i % RATINGS.length] ?? 'REI60',
        IsExternal: i % 3 === 0,
        LoadBearing: i % 2 === 0,
        AcousticRating: `R${40 + (i % 10)}`,
        ThermalTransmittance: 0.2 + (i % 50) / 100,
        Status: 'New',
      },
      [`Qto_${bare}BaseQuantities`]: {
        Length: 1 + (i % 900) / 100,
        Width: 0.1 + (i % 4) / 20,
        Height: 2.7,
        NetVolume: Number((0.25 * (1 + (i % 900) / 100)).toFixed(3)),
        NetSideArea: Number((2.7 * (1 + (i % 900) / 100)).toFixed(3)),
      },
      Materials: { 'Layer set': `Set ${i % 12}`, 'Layer 1': 'Concrete C30/37', 'Layer 1 thickness': 0.2 },
      Classification: { Uniclass: `Ss_25_${10 + (i % 30)}_30 ${bare}s` },
    },
    units: {
      [`Qto_${bare}BaseQuantities`]: {
        Length: 'm',
        Width: 'm',
        Height: 'm',
        NetVolume: 'm³',
        NetSideArea: 'm²',
      },
      Materials: { 'Layer 1 thickness': 'm' },
    },
  }
}

/** In node ID order, as the conversion child writes them (conversion/child.ts). */
async function* elementsOf(elements: number): AsyncGenerator<NodePropertiesInput> {
  const order = Array.from({ length: elements }, (_, i) => i)
  const ids = order.map(elementId)
  order.sort((a, b) => ((ids[a] ?? '') < (ids[b] ?? '') ? -1 : 1))
  for (const i of order) yield element(i)
}

export interface Estate {
  elementId: (i: number) => string
  /** The scene tree: a project, its storeys, the elements. */
  tree: () => SceneNode[]
  /** Every element's properties, in node ID order. */
  elements: () => AsyncGenerator<NodePropertiesInput>
}

export function estateOf(elements: number): Estate {
  return { elementId, tree: () => tree(elements), elements: () => elementsOf(elements) }
}

/** Stores an estate as a file's tree and properties the way a conversion does: staged, then published with the tree. */
export async function storeEstate(db: Db, fileId: string, estate: Estate) {
  const set = { fileId, generation: propertyGeneration(1, 1) }
  const stored = await stageSceneProperties(db, set, estate.elements())
  await db.kysely.transaction().execute(async (tx) => {
    await replaceSceneTree(tx, fileId, estate.tree())
    await publishSceneProperties(tx, set, stored)
  })
  return stored
}

// Scene: attributes of the nodes of a file's scene tree, and where that tree is stored.
export {
  globalIdsOfNodes,
  modelOriginShift,
  nodesOfGlobalIds,
  sceneParents,
} from './global-ids.ts'
export {
  type GenerationRange,
  type NodePropertiesInput,
  propertyGeneration,
  pruneSceneProperties,
  publishSceneProperties,
  stageSceneProperties,
} from './properties.ts'
export { existingNodeIds } from './repository.ts'
export { sceneRoutes } from './routes.ts'
export {
  replaceSceneTree,
  type SceneNode,
} from './service.ts'
export { sceneSettings } from './settings.ts'
export { sceneTreeJson } from './tree-json.ts'

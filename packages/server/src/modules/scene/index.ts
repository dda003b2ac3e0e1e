// Scene: attributes of the nodes of a file's scene tree, and where that tree is stored.
export { sceneRoutes } from './routes.ts'
export {
  replaceSceneTree,
  type SceneNode,
} from './service.ts'
export { sceneSettings } from './settings.ts'
export { sceneTreeJson } from './tree-json.ts'

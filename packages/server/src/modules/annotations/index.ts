// Annotations: notes pinned to a file's scene, with per-annotation access lists.
export { annotationRoutes } from './routes.ts'
export { annotationSettings } from './settings.ts'

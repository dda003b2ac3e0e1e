// Annotations: notes pinned to a file's scene, with per-annotation access lists.
export { annotationRoutes } from './routes.ts'
export { annotations, createAnnotationIn } from './service.ts'
export { annotationSettings } from './settings.ts'

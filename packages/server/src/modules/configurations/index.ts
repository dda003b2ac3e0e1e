// Configurations: saved viewer states of a file.

export { liveSharingOf } from './live-settings.ts'
export { configurationRoutes } from './routes.ts'
export { configurations, createConfigurationIn } from './service.ts'
export { configurationSettings } from './settings.ts'
export { THUMBNAIL_MAX_BYTES } from './thumbnail-image.ts'
export { listThumbnails, putThumbnail, readThumbnail } from './thumbnails.ts'

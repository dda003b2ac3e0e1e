// Conversion: uploaded models become optimized GLBs with a scene tree (pipeline/ does the 3D work
// in a child process; this module runs the jobs and serves the results).

export { uploadFormatPolicy } from './formats.ts'
export { conversionRoutes } from './routes.ts'
export { MAX_ATTEMPTS } from './service.ts'
export { conversionSettings } from './settings.ts'
export { ConversionWorker } from './worker.ts'

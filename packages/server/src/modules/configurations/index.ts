// Configurations: saved viewer states of a file.

export { liveSharingOf } from './live-settings.ts'
export { configurationRoutes } from './routes.ts'
export { configurationSettings } from './settings.ts'

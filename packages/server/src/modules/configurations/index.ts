// Configurations: saved viewer states of a file.
export { configurationRoutes } from './routes.ts'
export { configurationSettings } from './settings.ts'

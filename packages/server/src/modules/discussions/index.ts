// Discussions: replies on annotations, their counts and each account's read marker.
export { discussionRoutes } from './routes.ts'
export { discussionSettings } from './settings.ts'

// Discussions: replies on annotations, their counts and each account's read marker.

export { discussionsOfFile, listReplies } from './reads.ts'
export { discussionRoutes } from './routes.ts'
export { createReplyIn } from './service.ts'
export { discussionSettings } from './settings.ts'

// Share by link: a file's link (token, optional expiry and password), the link sessions it opens, and
// the signal that a link ended. Live sessions use `resolveLinkSession` and `onLinkRevoked` to admit
// and close guests (docs/api.md, "Links").
export { type LinkRevocation, onLinkRevoked } from './revocations.ts'
export { linkRoutes, linkSessionResolver } from './routes.ts'
export { isLinkOpen, LinkLimits, type LinkSession, resolveLinkSession } from './sessions.ts'
export { linkSettings } from './settings.ts'

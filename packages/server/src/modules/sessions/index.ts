// Sessions, the license pool, and the authentication hook every API route runs.
export { type AuthRequirement, authenticateRoutes, type Principal } from './authenticate.ts'
export { sessionRoutes } from './routes.ts'
export {
  createSession,
  deleteSession,
  keepAlive,
  type LicenseUsage,
  licenseUsage,
  pruneSessions,
} from './service.ts'

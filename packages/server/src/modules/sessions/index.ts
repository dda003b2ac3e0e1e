// Sessions, the license pool, and the authentication hook every API route runs.
export {
  type AuthRequirement,
  authenticateRoutes,
  type LinkSessionResolver,
  type Principal,
  principalOfTokens,
  requestSessionId,
  resolvePrincipal,
  sessionRefusalNow,
} from './authenticate.ts'
export type { CredentialSource } from './credentials.ts'
export { sessionRoutes } from './routes.ts'
export {
  createSession,
  deleteSession,
  endSessionNow,
  keepAlive,
  type LicenseUsage,
  licenseUsage,
  pruneSessions,
  setAccountDisabled,
} from './service.ts'
export { sessionSettings } from './settings.ts'

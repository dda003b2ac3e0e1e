// Administration: the admin console's routes (accounts, licenses) and operator changes that span
// modules (an account's e-mail and the file records mirroring it).
export { adminRoutes } from './routes.ts'
export { setAccountEmail } from './service.ts'

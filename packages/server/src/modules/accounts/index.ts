// Accounts: who may log in. Other modules use the lookups below.
export {
  type AccountsPage,
  changePassword,
  listAccountsPage,
  setPassword,
  updateEmail,
} from './changes.ts'
export { accountRoutes } from './routes.ts'
export { AccountView } from './schemas.ts'
export {
  type Account,
  checkAdminMayDisable,
  createAccount,
  ensureInitialAdmin,
  findAccount,
  findAccountByLogin,
  findAccountsByEmails,
  listAccounts,
  markAccountDisabled,
  timingDummy,
} from './service.ts'
export { accountSettings } from './settings.ts'

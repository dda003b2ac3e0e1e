// Accounts: who may log in. Other modules use the lookups below.
export { accountRoutes } from './routes.ts'
export {
  type Account,
  createAccount,
  ensureInitialAdmin,
  findAccount,
  findAccountByLogin,
  findAccountsByEmails,
  listAccounts,
  setDisabled,
  timingDummy,
} from './service.ts'

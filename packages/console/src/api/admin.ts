// Account settings and the admin routes (docs/api.md, browser section), through the SDK's typed
// client (tessera.api: the SDK wraps no admin calls). Servers without them answer 404
// ROUTE_NOT_FOUND, which the screens show as "not available on this server".

import { unwrap } from '@tessera/client'
import type { Connection } from './connection.ts'
import type { AccountSummary, LicenseUsage, NewAccount } from './types.ts'

export class Admin {
  readonly #connection: Connection

  constructor(connection: Connection) {
    this.#connection = connection
  }

  async changePassword(currentPassword: string, newPassword: string): Promise<void> {
    const api = this.#connection.signedIn.api
    await unwrap(api.PUT('/account/password', { body: { currentPassword, newPassword } }))
  }

  /** Whether the signed-in account is an admin (GET /account/me), asked before any admin route so
   * that a plain account's visit makes no refused request. */
  async isAdmin(): Promise<boolean> {
    return (await unwrap(this.#connection.signedIn.api.GET('/account/me'))).account.isAdmin
  }

  async accounts(): Promise<AccountSummary[]> {
    return (await unwrap(this.#connection.signedIn.api.GET('/admin/accounts'))).accounts
  }

  /** The body is the API's own type: a field the API does not know fails the typecheck, not the call. */
  async createAccount(fields: NewAccount) {
    const api = this.#connection.signedIn.api
    const body: NewAccount = { ...fields }
    return (await unwrap(api.POST('/admin/accounts', { body }))).account
  }

  async setDisabled(id: string, disabled: boolean): Promise<AccountSummary> {
    const api = this.#connection.signedIn.api
    const call = api.PATCH('/admin/accounts/{id}', { params: { path: { id } }, body: { disabled } })
    return (await unwrap(call)).account
  }

  licenses(): Promise<LicenseUsage> {
    return unwrap(this.#connection.signedIn.api.GET('/admin/licenses'))
  }
}

// Account settings and the admin routes (docs/api.md, browser section). Servers without them
// answer 404 ROUTE_NOT_FOUND, which the screens show as "not available on this server".
import type { Http } from './http.ts'
import type { AccountSummary, LicenseUsage } from './types.ts'

export class Admin {
  constructor(private readonly http: Http) {}

  async changePassword(currentPassword: string, newPassword: string): Promise<void> {
    await this.http.fetch('PUT', '/account/password', { json: { currentPassword, newPassword } })
  }

  accounts(): Promise<AccountSummary[]> {
    return this.http.json<{ accounts: AccountSummary[] }>('GET', '/admin/accounts').then((a) => a.accounts)
  }

  createAccount(fields: { username: string; email: string; password: string; isAdmin?: boolean }) {
    return this.http
      .json<{ account: AccountSummary }>('POST', '/admin/accounts', { json: fields })
      .then((a) => a.account)
  }

  setDisabled(id: string, disabled: boolean): Promise<AccountSummary> {
    return this.http
      .json<{ account: AccountSummary }>('PATCH', `/admin/accounts/${id}`, { json: { disabled } })
      .then((a) => a.account)
  }

  licenses(): Promise<LicenseUsage> {
    return this.http.json<LicenseUsage>('GET', '/admin/licenses')
  }
}

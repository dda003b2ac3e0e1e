// Administrators' calls (GET /admin/accounts …): every other caller gets 403 FORBIDDEN.
import { type ApiClient, unwrap } from './http.ts'
import { type ListOptions, Paged, pageQuery } from './paging.ts'
import type { AdminAccount } from './types.ts'

export class Admin {
  private readonly api: ApiClient

  constructor(api: ApiClient) {
    this.api = api
  }

  /** Every account of the instance, in creation order, paged (paging.ts). */
  listAccounts(options: ListOptions = {}): Paged<AdminAccount> {
    return new Paged(async (request) => {
      const page = await unwrap(this.api.GET('/admin/accounts', { params: { query: pageQuery(request) } }))
      return { items: page.accounts, nextCursor: page.nextCursor ?? null }
    }, options)
  }
}

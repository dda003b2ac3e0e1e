// Webhook registration and the delivery log (docs/webhooks.md).
import { type ApiClient, unwrap } from './http.ts'
import { type ListOptions, Paged, pageQuery } from './paging.ts'
import type { Answer, DeliveryStatus, JsonBody, WebhookDelivery, WebhookDeliveryDetail } from './types.ts'

export type WebhookInput = JsonBody<'/webhook/', 'put'>
export type WebhookUpdate = JsonBody<'/webhook/{id}', 'patch'>
/** `{type: "webhook", id, attributes}`; the secret is never returned. */
export type WebhookResource = Answer<'/webhook/{id}', 'get'>['data']
/** A created webhook; `secretToken` only when the server generated it (shown once). */
export type CreatedWebhook = WebhookResource & { secretToken?: string }
export type DeliveryPage = Answer<'/webhook/{id}/deliveries', 'get'>
export type RecoverResult = Answer<'/webhook/{id}/recover', 'post'>

export interface DeliveryQuery {
  status?: DeliveryStatus
  cursor?: string
  /** 1–200, default 50. */
  limit?: number
}

export class Webhooks {
  private readonly api: ApiClient

  constructor(api: ApiClient) {
    this.api = api
  }

  /**
   * Registers a webhook. Without `secretToken` the server generates one (`whsec_` + base64 of 32
   * random bytes) and the answer carries it in `secretToken`, this once: store it now, no later
   * call returns it. With one, the answer has no `secretToken`.
   */
  async create(input: WebhookInput): Promise<CreatedWebhook> {
    const answer = await unwrap(this.api.PUT('/webhook/', { body: input }))
    return answer.secretToken === undefined
      ? answer.data
      : { ...answer.data, secretToken: answer.secretToken }
  }

  /**
   * The caller's webhooks. The server answers them in one page (an account holds at most
   * 100); a `Paged` all the same, like every list of the SDK.
   */
  list(): Paged<WebhookResource> {
    return new Paged(async () => ({
      items: (await unwrap(this.api.GET('/webhook/'))).data,
      nextCursor: null,
    }))
  }

  async get(id: string): Promise<WebhookResource> {
    return (await unwrap(this.api.GET('/webhook/{id}', { params: { path: { id } } }))).data
  }

  /** `{url?, secretToken?, disabled?, __v?}`; a new secretToken starts a 24-hour rotation. */
  async update(id: string, input: WebhookUpdate): Promise<WebhookResource> {
    return (await unwrap(this.api.PATCH('/webhook/{id}', { params: { path: { id } }, body: input }))).data
  }

  async delete(id: string): Promise<void> {
    await unwrap(this.api.DELETE('/webhook/{id}', { params: { path: { id } } }))
  }

  /** One page of the delivery log, newest first. */
  async deliveries(id: string, query: DeliveryQuery = {}): Promise<DeliveryPage> {
    const params = {
      path: { id },
      query: {
        ...(query.status ? { status: query.status } : {}),
        ...pageQuery(query),
      },
    }
    return unwrap(this.api.GET('/webhook/{id}/deliveries', { params }))
  }

  /** The webhook's deliveries (optionally of one status), newest first, paged (paging.ts). */
  listDeliveries(
    id: string,
    options: ListOptions & { status?: DeliveryStatus } = {},
  ): Paged<WebhookDelivery> {
    const { status, ...list } = options
    return new Paged(async (request) => {
      const page = await this.deliveries(id, { ...(status ? { status } : {}), ...request })
      return { items: page.deliveries, nextCursor: page.nextCursor ?? null }
    }, list)
  }

  /** Every delivery (optionally of one status), page by page; `listDeliveries` is the same as a `Paged`. */
  allDeliveries(id: string, status?: DeliveryStatus): AsyncIterable<WebhookDelivery> {
    return this.listDeliveries(id, status ? { status } : {})
  }

  /** One delivery with its payload and attempts. */
  async delivery(id: string, deliveryId: string): Promise<WebhookDeliveryDetail> {
    const call = this.api.GET('/webhook/{id}/deliveries/{deliveryId}', {
      params: { path: { id, deliveryId } },
    })
    return (await unwrap(call)).delivery
  }

  /** Makes one delivery due now (409 DELIVERY_IN_PROGRESS, WEBHOOK_DISABLED). */
  async retry(id: string, deliveryId: string): Promise<WebhookDelivery> {
    const call = this.api.POST('/webhook/{id}/deliveries/{deliveryId}/retry', {
      params: { path: { id, deliveryId } },
    })
    return (await unwrap(call)).delivery
  }

  /** "The receiver works again": failed and paused deliveries since `since` are due now. */
  async recover(id: string, since: Date | number | string): Promise<RecoverResult> {
    const value = since instanceof Date ? since.toISOString() : since
    return unwrap(
      this.api.POST('/webhook/{id}/recover', { params: { path: { id } }, body: { since: value } }),
    )
  }

  /** Queues a sample event for this webhook only (header `x-service-test: 1`). */
  async test(id: string): Promise<WebhookDelivery> {
    return (await unwrap(this.api.POST('/webhook/{id}/test', { params: { path: { id } } }))).delivery
  }
}

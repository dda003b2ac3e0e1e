// Webhook registrations and their delivery log (docs/webhooks.md).
import type { Http } from './http.ts'
import type { Delivery, DeliveryDetail, DeliveryStatus, Webhook, WebhookEvent } from './types.ts'

interface Wrapped {
  attributes: Webhook
}

export class Webhooks {
  constructor(private readonly http: Http) {}

  list(): Promise<Webhook[]> {
    return this.http
      .json<{ data: Wrapped[] }>('GET', '/webhook/')
      .then((a) => a.data.map((w) => w.attributes))
  }

  create(event: WebhookEvent, url: string, secretToken: string): Promise<Webhook> {
    return this.http
      .json<{ data: Wrapped }>('PUT', '/webhook/', { json: { event, url, secretToken } })
      .then((a) => a.data.attributes)
  }

  update(id: string, changes: { url?: string; secretToken?: string; disabled?: boolean }): Promise<Webhook> {
    return this.http
      .json<{ data: Wrapped }>('PATCH', `/webhook/${id}`, { json: changes })
      .then((a) => a.data.attributes)
  }

  async remove(id: string): Promise<void> {
    await this.http.fetch('DELETE', `/webhook/${id}`)
  }

  deliveries(
    id: string,
    options: { status?: DeliveryStatus; cursor?: string; limit?: number } = {},
  ): Promise<{ deliveries: Delivery[]; nextCursor: string | null }> {
    return this.http.json('GET', `/webhook/${id}/deliveries`, { query: { ...options } })
  }

  delivery(id: string, deliveryId: string): Promise<DeliveryDetail> {
    return this.http
      .json<{ delivery: DeliveryDetail }>('GET', `/webhook/${id}/deliveries/${deliveryId}`)
      .then((a) => a.delivery)
  }

  retry(id: string, deliveryId: string): Promise<Delivery> {
    return this.http
      .json<{ delivery: Delivery }>('POST', `/webhook/${id}/deliveries/${deliveryId}/retry`)
      .then((a) => a.delivery)
  }

  recover(id: string, since: string): Promise<{ recovered: number; reenabled: boolean }> {
    return this.http.json('POST', `/webhook/${id}/recover`, { json: { since } })
  }

  test(id: string): Promise<Delivery> {
    return this.http.json<{ delivery: Delivery }>('POST', `/webhook/${id}/test`).then((a) => a.delivery)
  }
}

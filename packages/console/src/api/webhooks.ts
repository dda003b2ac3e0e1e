// Webhook registrations and their delivery log (docs/webhooks.md), through the SDK (tessera.webhooks).
import type { Connection } from './connection.ts'
import type { Delivery, DeliveryDetail, DeliveryStatus, Webhook, WebhookEvent } from './types.ts'

export class Webhooks {
  readonly #connection: Connection

  constructor(connection: Connection) {
    this.#connection = connection
  }

  async list(): Promise<Webhook[]> {
    return (await this.#connection.signedIn.webhooks.list()).map((w) => w.attributes)
  }

  async create(event: WebhookEvent, url: string, secretToken: string): Promise<Webhook> {
    return (await this.#connection.signedIn.webhooks.create({ event, url, secretToken })).attributes
  }

  async update(
    id: string,
    changes: { url?: string; secretToken?: string; disabled?: boolean },
  ): Promise<Webhook> {
    return (await this.#connection.signedIn.webhooks.update(id, changes)).attributes
  }

  remove(id: string): Promise<void> {
    return this.#connection.signedIn.webhooks.delete(id)
  }

  async deliveries(
    id: string,
    options: { status?: DeliveryStatus; cursor?: string; limit?: number } = {},
  ): Promise<{ deliveries: Delivery[]; nextCursor: string | null }> {
    const page = await this.#connection.signedIn.webhooks.deliveries(id, options)
    return { deliveries: page.deliveries, nextCursor: page.nextCursor ?? null }
  }

  delivery(id: string, deliveryId: string): Promise<DeliveryDetail> {
    return this.#connection.signedIn.webhooks.delivery(id, deliveryId)
  }

  retry(id: string, deliveryId: string): Promise<Delivery> {
    return this.#connection.signedIn.webhooks.retry(id, deliveryId)
  }

  recover(id: string, since: string): Promise<{ recovered: number; reenabled: boolean }> {
    return this.#connection.signedIn.webhooks.recover(id, since)
  }

  test(id: string): Promise<Delivery> {
    return this.#connection.signedIn.webhooks.test(id)
  }
}

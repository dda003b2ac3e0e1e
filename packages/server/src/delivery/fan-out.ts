// The delivery engine's subscription to the event outbox (events/subscribers.ts): in the emitting
// transaction, one delivery per webhook of the event's readers (sqlite/fan-out.ts row by row, with
// the hand-off to an in-process worker; postgres/fan-out.ts as part of the outbox's one statement).
// A process that emits registers it once, at composition (server-context.ts createContext).
import { type OutboxSubscriber, onEmit } from '../events/index.ts'
import { deliveryStore } from './store.ts'

const deliveryFanOut: OutboxSubscriber = { hookFor: (db) => deliveryStore(db).fanOut }

/** Makes every emit of this process queue its deliveries (again: no change). */
export function subscribeDeliveries(): void {
  onEmit(deliveryFanOut)
}

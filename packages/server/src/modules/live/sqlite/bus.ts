// SQLite: the hubs sharing one database are in this process (tests may run two apps on one
// database); with `serve --processes N` the cluster's primary relays the messages between the API
// processes over IPC (cli/cluster.ts), as it relays job wake-ups.
import { type BusListener, Listeners, type LiveBus, type RelayMessage } from '../bus.ts'

/** How messages leave this process, and come in from the others (the cluster's IPC). */
export interface LiveIpc {
  send(payload: string): void
  onMessage(listener: (payload: string) => void): void
}

export class MemoryBus implements LiveBus {
  readonly #listeners = new Listeners()
  #ipc: LiveIpc | null = null

  /** Relays through `ipc` from now on as well. */
  attach(ipc: LiveIpc): void {
    this.#ipc = ipc
    ipc.onMessage((payload) => {
      for (const message of JSON.parse(payload) as RelayMessage[]) this.#listeners.deliver(message)
    })
  }

  useLog(): void {}

  publish(message: RelayMessage): void {
    // After the publisher's own step, as a notification would be.
    queueMicrotask(() => this.#listeners.deliver(message))
    this.#ipc?.send(JSON.stringify([message]))
  }

  subscribe(listener: BusListener): () => void {
    const stop = this.#listeners.add(listener)
    queueMicrotask(() => listener.up())
    return stop
  }
}

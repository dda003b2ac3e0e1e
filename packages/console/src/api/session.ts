// Sign-in, the session's keep-alive and sign-out, through the SDK: Tessera.connect logs in, takes a
// license and keeps the session alive; logout() ends it at once (the license is free now).
import { Tessera } from '@tessera/client'
import type { Connection } from './connection.ts'

export interface Identity {
  username: string
  email: string
}

export class Session {
  identity: Identity | null = null
  readonly #connection: Connection

  constructor(connection: Connection) {
    this.#connection = connection
  }

  get connected(): boolean {
    return this.#connection.tessera !== null
  }

  /** Log in, then take a license; keeps the session alive until close(). */
  async connect(username: string, password: string): Promise<Identity> {
    // No license (402) or any other refusal throws before anything is kept: nothing half-signed-in.
    const tessera = await Tessera.connect({ url: this.#connection.url, username, password, ...this.#hooks() })
    this.#take(tessera)
    this.identity = tessera.account ?? { username, email: '' }
    return this.identity
  }

  /** A new session for the same auth token: takes the license back from a session elsewhere. */
  async openSession(): Promise<void> {
    const previous = this.#connection.signedIn
    previous.stopKeepAlive()
    this.#take(
      await Tessera.connect({ url: this.#connection.url, authToken: previous.authToken, ...this.#hooks() }),
    )
  }

  /** Sign out: ends the session at once (its license is free); always succeeds locally. */
  async close(): Promise<void> {
    const tessera = this.#connection.tessera
    try {
      if (tessera && !this.#connection.lost) await tessera.logout()
    } catch {
      // Signing out must always succeed locally, even when the session is already gone.
    } finally {
      tessera?.stopKeepAlive()
      this.forget()
    }
  }

  /** Drop the connection without calling the server (the session is already gone). */
  forget(): void {
    this.#connection.tessera?.stopKeepAlive()
    this.#connection.tessera = null
    this.#connection.lost = null
    this.identity = null
  }

  #hooks() {
    return {
      fetch: this.#connection.fetch,
      onSessionLost: (error: { code: string }) => this.#connection.notice(error.code),
    }
  }

  #take(tessera: Tessera): void {
    this.#connection.tessera = tessera
    this.#connection.lost = null
  }
}

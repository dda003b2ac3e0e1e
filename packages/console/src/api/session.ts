// Sign-in, the session's keep-alive and sign-out, through the SDK in cookie mode: Tessera.connect
// logs in (the tokens become HttpOnly cookies no script can read), takes a license and keeps the
// session alive; Tessera.resume picks the session up again after a reload; logout() ends it at once
// (the license is free now) and clears the cookies.
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
    const tessera = await Tessera.connect({ ...this.#options(), username, password })
    return this.#take(tessera)
  }

  /** After a reload: the session the cookies hold, if it still works (else the sign-in screen). */
  async resume(): Promise<Identity> {
    return this.#take(await Tessera.resume(this.#options()))
  }

  /** A new session for the same sign-in (the auth cookie): takes the license back from elsewhere. */
  async openSession(): Promise<void> {
    this.#connection.signedIn.stopKeepAlive()
    this.#take(await Tessera.connect(this.#options()))
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

  #options() {
    return {
      url: this.#connection.url,
      cookies: true as const,
      fetch: this.#connection.fetch,
      onSessionLost: (error: { code: string }) => this.#connection.notice(error.code),
    }
  }

  #take(tessera: Tessera): Identity {
    this.#connection.tessera = tessera
    this.#connection.lost = null
    this.identity = tessera.account ?? this.identity ?? { username: '', email: '' }
    return this.identity
  }
}

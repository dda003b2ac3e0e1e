// The console's API client: one object, the same shape the SDK (@tessera/client) will offer, so the
// screens do not change when it is swapped in.
import { Admin } from './admin.ts'
import { Files } from './files.ts'
import { Http } from './http.ts'
import { Scene } from './scene.ts'
import { Session } from './session.ts'
import { Webhooks } from './webhooks.ts'

export { ApiError, isMissingRoute, isSessionLost, type SessionLostCode } from './http.ts'
export type * from './types.ts'
export { WEBHOOK_EVENTS } from './types.ts'

export class Client {
  readonly http: Http
  readonly session: Session
  readonly files: Files
  readonly scene: Scene
  readonly webhooks: Webhooks
  readonly admin: Admin
  constructor(baseUrl = '') {
    this.http = new Http(baseUrl)
    this.session = new Session(this.http)
    this.files = new Files(this.http)
    this.scene = new Scene(this.http)
    this.webhooks = new Webhooks(this.http)
    this.admin = new Admin(this.http)
  }
}

export const client = new Client()

// The console's API client: one object over the SDK (@tessera/client) with the calls the screens
// make; `connection` holds the signed-in Tessera and tells the app when the session is lost.
import { Admin } from './admin.ts'
import { Connection } from './connection.ts'
import { Files } from './files.ts'
import { Scene } from './scene.ts'
import { Session } from './session.ts'
import { Webhooks } from './webhooks.ts'

export { ApiError, isMissingRoute, isSessionLost, type SessionLostCode } from './connection.ts'
export type * from './types.ts'
export { WEBHOOK_EVENTS } from './types.ts'

class Client {
  readonly connection: Connection
  readonly session: Session
  readonly files: Files
  readonly scene: Scene
  readonly webhooks: Webhooks
  readonly admin: Admin
  constructor(baseUrl = '') {
    this.connection = new Connection(baseUrl)
    this.session = new Session(this.connection)
    this.files = new Files(this.connection)
    this.scene = new Scene(this.connection)
    this.webhooks = new Webhooks(this.connection)
    this.admin = new Admin(this.connection)
  }
}

export const client = new Client()

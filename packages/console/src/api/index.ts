// The console's API client: one object over the SDK (@tessera/client) with the calls the screens
// make; `connection` holds the signed-in Tessera and tells the app when the session is lost.
import { Admin } from './admin.ts'
import { Connection } from './connection.ts'
import { Discussions } from './discussions.ts'
import { Files } from './files.ts'
import { Links } from './links.ts'
import { Live } from './live.ts'
import { Scene } from './scene.ts'
import { Session } from './session.ts'
import { Webhooks } from './webhooks.ts'

export { ApiError, isMissingRoute, isSessionLost, type SessionLostCode } from './connection.ts'
export { type CreatedLink, type LinkSettings, linkUrl } from './links.ts'
export type * from './types.ts'
export { WEBHOOK_EVENTS } from './types.ts'

class Client {
  readonly connection: Connection
  readonly session: Session
  readonly files: Files
  readonly links: Links
  readonly live: Live
  readonly scene: Scene
  readonly discussions: Discussions
  readonly webhooks: Webhooks
  readonly admin: Admin
  constructor(baseUrl = '') {
    this.connection = new Connection(baseUrl)
    this.session = new Session(this.connection)
    this.files = new Files(this.connection)
    this.links = new Links(this.connection)
    this.live = new Live(this.connection)
    this.scene = new Scene(this.connection)
    this.discussions = new Discussions(this.connection)
    this.webhooks = new Webhooks(this.connection)
    this.admin = new Admin(this.connection)
  }
}

export const client = new Client()

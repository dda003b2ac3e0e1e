// The discussions of annotations through the SDK (tessera.discussions): replies, read markers and
// the per-file summary with my unread counts.
import type { Connection } from './connection.ts'
import type { AnnotationReply, DiscussionState } from './types.ts'

export class Discussions {
  readonly #connection: Connection

  constructor(connection: Connection) {
    this.#connection = connection
  }

  /** Every reply of the thread, oldest first (pages followed; at most TESSERA_ANNOTATION_MAX_REPLIES). */
  replies(annotation: string): Promise<AnnotationReply[]> {
    return this.#connection.reader.discussions.list(annotation)
  }

  reply(annotation: string, text: string): Promise<AnnotationReply> {
    return this.#connection.signedIn.discussions.reply(annotation, text)
  }

  edit(id: string, text: string): Promise<AnnotationReply> {
    return this.#connection.signedIn.discussions.edit(id, text)
  }

  async delete(id: string): Promise<void> {
    await this.#connection.signedIn.discussions.delete(id)
  }

  markRead(annotation: string): Promise<DiscussionState> {
    return this.#connection.signedIn.discussions.markRead(annotation)
  }

  summary(file: string): Promise<DiscussionState[]> {
    return this.#connection.reader.discussions.summary(file)
  }
}

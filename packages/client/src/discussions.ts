// Discussions on annotations: the replies of an annotation's thread, read markers and the per-file
// summary with unread counts (docs/api.md, "Discussions on annotations").
import { type ApiClient, unwrap } from './http.ts'
import { type ListOptions, Paged, pageQuery } from './paging.ts'
import type { AnnotationReply, DiscussionState } from './types.ts'

export class Discussions {
  private readonly api: ApiClient

  constructor(api: ApiClient) {
    this.api = api
  }

  /** The replies of an annotation's discussion, oldest first, paged (paging.ts). */
  list(annotation: string, options: ListOptions = {}): Paged<AnnotationReply> {
    return new Paged(async (request) => {
      const query = { annotation, ...pageQuery(request) }
      const page = await unwrap(this.api.GET('/annotation/reply/', { params: { query } }))
      return { items: page.replies, nextCursor: page.nextCursor }
    }, options)
  }

  /** Posts a reply (sent with an Idempotency-Key, so a retry never posts it twice). */
  async reply(annotation: string, text: string): Promise<AnnotationReply> {
    return (await unwrap(this.api.POST('/annotation/reply/create/', { body: { annotation, text } }))).reply
  }

  /** Changes the text of your own reply. */
  async edit(id: string, text: string): Promise<AnnotationReply> {
    return (await unwrap(this.api.POST('/annotation/reply/update/', { body: { _id: id, text } }))).reply
  }

  /** Deletes your reply (or any reply of your file's annotations); answers it as it was. */
  async delete(id: string): Promise<AnnotationReply> {
    return (await unwrap(this.api.DELETE('/annotation/reply/delete/', { body: { _id: id } }))).reply
  }

  /** Marks the thread read up to reply `upTo` (its `seq`; default the newest). */
  async markRead(annotation: string, upTo?: number): Promise<DiscussionState> {
    const body = upTo === undefined ? { annotation } : { annotation, upTo }
    return (await unwrap(this.api.POST('/annotation/reply/read/', { body }))).discussion
  }

  /** The threads of a file's annotations you may read, with their counts and your unread replies. */
  async summary(file: string): Promise<DiscussionState[]> {
    return (await unwrap(this.api.GET('/annotation/discussion/', { params: { query: { file } } })))
      .discussions
  }
}

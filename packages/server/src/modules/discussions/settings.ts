// The settings modules/discussions/ owns: the bounds of annotation discussions. Declared here,
// assembled and parsed once at start-up with every other owner's by app/config.ts.
import { integer, type Setting } from '../../platform/settings.ts'

declare module '../../platform/config.ts' {
  interface Config {
    /** Replies one annotation's discussion may hold. */
    annotationMaxReplies: number
    /** Replies per page of a discussion (the default and maximum `limit`). */
    replyPageMaxItems: number
  }
}

export const discussionSettings = [
  {
    name: 'TESSERA_ANNOTATION_MAX_REPLIES',
    key: 'annotationMaxReplies',
    default: '1000',
    help: 'replies one annotation’s discussion may hold (more: 409 REPLY_LIMIT_REACHED)',
    parse: integer(1, 100_000),
  },
  {
    name: 'TESSERA_REPLY_PAGE_MAX_ITEMS',
    key: 'replyPageMaxItems',
    default: '200',
    help: 'replies per page of a discussion (default and maximum limit)',
    parse: integer(1, 10_000),
  },
] satisfies Setting[]

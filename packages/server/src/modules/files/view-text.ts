// The JSON text of the answers that carry kept file views (view-cache.ts): a listing of a directory
// and GET /file/:id. Their routes declare their TypeBox response schema as every route does (it is
// the contract and the OpenAPI document), and answer objects of that schema; these serializers stand
// behind the schema in place of the one Fastify compiles from it (answerSerializer). They write the
// same JSON (the answers' members in the schema's order; a view's own members as toFileView orders
// them, which is the schema's), but keep each kept view's text with the view object: an unchanged
// file is serialized once, not per request (bench:api list10 and record, docs/benchmarks.md).
// Serializing ten views per request through the compiled schema cost about a third of a listing's
// CPU on SQLite. Only objects this module's views are built from go through here (FileViewShape,
// folders, cursors): nothing a client sent.
import type { FastifySerializerCompiler } from 'fastify'
import type { FileViewShape } from './views.ts'

/** By view object: a kept view is never changed, and its text goes with it when it is dropped. */
const texts = new WeakMap<FileViewShape, string>()

/** The view's JSON text, written once per view object. */
export function fileViewText(view: FileViewShape): string {
  let text = texts.get(view)
  if (text === undefined) {
    text = JSON.stringify(view)
    texts.set(view, text)
  }
  return text
}

/** A folder of a listing's first page (listing/service.ts Folder). */
interface FolderEntry {
  name: string
  path: string
  files: number
}

/** A directory listing: the files/listing/schemas.ts `Listing` schema. */
export interface ListingAnswer {
  success: true
  files: FileViewShape[]
  folders?: FolderEntry[]
  nextCursor?: string | null
}

export function listingText(answer: ListingAnswer): string {
  let text = '{"success":true,"files":['
  for (let i = 0; i < answer.files.length; i++) {
    const file = answer.files[i] as FileViewShape
    text += i === 0 ? fileViewText(file) : `,${fileViewText(file)}`
  }
  text += ']'
  if (answer.folders !== undefined) text += `,"folders":${JSON.stringify(answer.folders)}`
  if (answer.nextCursor !== undefined) text += `,"nextCursor":${JSON.stringify(answer.nextCursor)}`
  return `${text}}`
}

/** GET /file/:id: the files/schemas.ts `FileAnswer` schema. */
export function fileAnswerText(answer: { success: true; file: FileViewShape }): string {
  return `{"success":true,"file":${fileViewText(answer.file)}}`
}

/**
 * A route's serializerCompiler whose 200 answer `serialize` writes (the route's schema still says
 * what that answer is); other statuses, which these routes declare none of, as JSON.
 */
export function answerSerializer<Answer>(
  serialize: (answer: Answer) => string,
): FastifySerializerCompiler<unknown> {
  return ({ httpStatus }) =>
    httpStatus === '200' ? (data) => serialize(data as Answer) : (data) => JSON.stringify(data)
}

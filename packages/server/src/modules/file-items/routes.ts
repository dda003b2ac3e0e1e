// The route shapes of the spec's file-item APIs (annotations, configurations): every answer is
// `{success: true, <item>: record}` or `{success: true, <items>: [records], nextCursor?}`; a DELETE
// takes the id as JSON body or as query, a listing the file (and its paging) as query. Every
// description ends with the item's note on permissions.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { type Static, type TObject, type TSchema, Type } from 'typebox'
import type { AppContext } from '../../platform/context.ts'
import { AppError } from '../../platform/errors.ts'
import type { InCommit } from '../../platform/idempotency.ts'
import { answerInCommit } from '../../platform/idempotent-routes.ts'
import { IdInput, ListingNextCursor, ListQuery } from './schemas.ts'

/** Who calls (set by the authentication hook on every API route). */
type Auth = FastifyRequest['auth']

interface RouteText {
  /** The OpenAPI operationId: the name generated clients give the call. */
  operationId: string
  summary: string
  /** Followed by the item's note on permissions. */
  description: string
}

/** The service behind the DELETE and the listing (service.ts FileItems). */
interface ItemService {
  remove(ctx: AppContext, caller: Auth, id: string): Promise<unknown>
  list(
    ctx: AppContext,
    caller: Auth,
    fileId: string,
    paging: { limit?: number; cursor?: string },
  ): Promise<{ items: unknown[]; nextCursor: string | null }>
}

const PAGING_NOTE =
  'At most `limit` items per page (default and maximum TESSERA_ITEM_PAGE_MAX_ITEMS, 1000), and a ' +
  'page ends at the first item past TESSERA_ITEM_PAGE_MAX_BYTES (2 MiB) of stored bytes. Pass ' +
  '`nextCursor` as `cursor` for the next page; null on the last page. A call without `limit` and ' +
  '`cursor` whose file fits one page answers without `nextCursor`.'

/** preValidation: a DELETE may come without a body (id in the query); validation then sees {}. */
async function bodyOptional(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {}
}

/** The id of a DELETE, from the JSON body or the query (both: they must agree). */
function idOfDelete(body: { _id?: string } | undefined | null, query: { _id?: string }): string {
  const fromBody = body?._id
  const fromQuery = query._id
  if (fromBody && fromQuery && fromBody !== fromQuery) {
    throw new AppError('VALIDATION_FAILED', '_id in the body and in the query differ.')
  }
  const id = fromBody ?? fromQuery
  if (!id)
    throw new AppError('VALIDATION_FAILED', 'Give the _id to delete, as JSON body {"_id"} or as ?_id=.')
  return id
}

export interface ItemRoutesSpec {
  /** The record's schema, with the `$id` answers refer to. */
  record: TSchema
  tags: string[]
  /** The answer's key for one record ('annotation') and for a listing ('annotations'). */
  one: string
  many: string
  /** Who may do what: ends every route's description. */
  permissionsNote: string
  items: ItemService
}

export class ItemRoutes {
  readonly #app: FastifyInstance
  readonly #ctx: AppContext
  readonly #spec: ItemRoutesSpec
  readonly #answer: TObject
  readonly #list: TObject

  constructor(app: FastifyInstance, ctx: AppContext, spec: ItemRoutesSpec) {
    this.#app = app
    this.#ctx = ctx
    this.#spec = spec
    const recordId = (spec.record as { $id?: unknown }).$id
    if (typeof recordId !== 'string') throw new Error('the record schema of item routes needs an $id')
    app.addSchema(spec.record)
    const record = Type.Ref(recordId)
    this.#answer = Type.Object({ success: Type.Literal(true), [spec.one]: record })
    this.#list = Type.Object({
      success: Type.Literal(true),
      [spec.many]: Type.Array(record),
      nextCursor: ListingNextCursor,
    })
  }

  /**
   * A POST whose body (validated by `body`) makes or changes a record; answers it. `handle` calls
   * `inCommit`, when given, last in its transaction with the record (Idempotency-Key).
   */
  post<Body extends TSchema>(
    url: string,
    text: RouteText & { body: Body; idempotent?: boolean },
    handle: (auth: Auth, body: Static<Body>, inCommit?: InCommit<unknown>) => Promise<unknown>,
  ): void {
    this.#app.post(
      url,
      {
        config: text.idempotent ? { idempotent: 'body' } : {},
        schema: { ...this.#text(text), body: text.body, response: { 200: this.#answer } },
      },
      async (request, reply) => {
        const inCommit = answerInCommit(request, reply, (record: unknown) => this.#one(record))
        // The body schema has validated it.
        return this.#one(await handle(request.auth, request.body as Static<Body>, inCommit))
      },
    )
  }

  /** A DELETE of the record whose id comes as JSON body {"_id"} or as query ?_id=; answers it. */
  delete(url: string, operationId: string, summary: string): void {
    const description =
      'The id as JSON body {"_id"} or as query ?_id= (neither: 400). Answers the removed record. ' +
      `Emits ${this.#spec.one}_removed.`
    this.#app.delete(
      url,
      {
        preValidation: bodyOptional,
        schema: {
          ...this.#text({ operationId, summary, description }),
          body: IdInput,
          querystring: IdInput,
          response: { 200: this.#answer },
        },
      },
      async (request) => {
        // The schemas have validated both.
        const body = request.body as Static<typeof IdInput> | undefined
        const id = idOfDelete(body, request.query as Static<typeof IdInput>)
        return this.#one(await this.#spec.items.remove(this.#ctx, request.auth, id))
      },
    )
  }

  /** A GET of the records of the file given as query ?file= (`detail`: what else to say of them). */
  list(url: string, operationId: string, summary: string, detail?: string): void {
    const query = ListQuery
    const description = detail ? `Oldest first. ${PAGING_NOTE} ${detail}` : `Oldest first. ${PAGING_NOTE}`
    this.#app.get(
      url,
      {
        config: { link: 'read' },
        schema: {
          ...this.#text({ operationId, summary, description }),
          querystring: query,
          response: { 200: this.#list },
        },
      },
      async (request) => {
        const { file, limit, cursor } = request.query as Static<typeof query>
        const paged = { limit: limit === undefined ? undefined : Number(limit), cursor }
        const page = await this.#spec.items.list(this.#ctx, request.auth, file, paged)
        const paging = limit !== undefined || cursor !== undefined || page.nextCursor !== null
        return {
          success: true as const,
          [this.#spec.many]: page.items,
          ...(paging ? { nextCursor: page.nextCursor } : {}),
        }
      },
    )
  }

  #text({ operationId, summary, description }: RouteText) {
    const text = `${description} ${this.#spec.permissionsNote}`
    return { tags: this.#spec.tags, operationId, summary, description: text }
  }

  #one(record: unknown) {
    return { success: true as const, [this.#spec.one]: record }
  }
}

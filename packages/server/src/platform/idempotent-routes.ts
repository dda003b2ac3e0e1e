// Idempotency-Key on the routes that create something (docs/api.md, "Idempotent requests"). A
// route says `config: { idempotent: 'body' }` (the key is taken once the JSON body is validated)
// or `'handler'` (the route reads its body itself, e.g. a multipart upload, and calls
// `claimIdempotencyKey` with its own fingerprint). A success is stored by the route's service in
// its own transaction (`answerInCommit`); a refusal (4xx) as it is sent, since nothing was changed.
import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest, onSendHookHandler, RouteOptions } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from './context.ts'
import type { Executor } from './db/index.ts'
import { AppError } from './errors.ts'
import {
  completeIdempotencyKey,
  type IdempotencyLimits,
  type InCommit,
  idempotencyKeyOf,
  releaseIdempotencyKey,
  reserveIdempotencyKey,
} from './idempotency.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route creates something and honours Idempotency-Key; see idempotent-routes.ts. */
    idempotent?: 'body' | 'handler'
  }
  interface FastifyRequest {
    /** The key this request reserved, until its answer is stored. */
    idempotencyKey: { accountId: string; key: string } | null
    /** Its success answer was stored in the change's transaction (answerInCommit). */
    idempotencyKeyStored: boolean
  }
}

const REPLAYED_HEADER = 'idempotent-replayed'

const KEY_HEADER = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ description: 'Any 1–255 printable ASCII characters, e.g. a UUID; see docs/api.md.' }),
  ),
})

const IDEMPOTENCY_NOTE =
  'Honours an `Idempotency-Key` header (docs/api.md, "Idempotent requests"): a repeat within ' +
  'TESSERA_IDEMPOTENCY_TTL answers the first answer again with `Idempotent-Replayed: true`; the key ' +
  'with another request is 422 IDEMPOTENCY_KEY_REUSED, while the first still runs 409 ' +
  'IDEMPOTENCY_KEY_IN_USE (with Retry-After), a malformed key 400 INVALID_IDEMPOTENCY_KEY.'

/** The fingerprint of a request: SHA-256 of its method, its URL and its content. */
export function requestFingerprint(method: string, url: string, content: string): string {
  return createHash('sha256').update(`${method}\n${url}\n`).update(content).digest('hex')
}

export interface IdempotencyStore {
  db: Executor
  limits: IdempotencyLimits
  log: { error: (object: unknown, message: string) => void }
}

/** The store of a context's database, with its configured bounds. */
export function idempotencyStore(ctx: AppContext): IdempotencyStore {
  return {
    db: ctx.db.kysely,
    limits: { ttlMs: ctx.config.idempotencyTtlMs, maxKeysPerAccount: ctx.config.idempotencyMaxKeys },
    log: ctx.log,
  }
}

/**
 * Reserves the request's Idempotency-Key (if it has one) for the request `fingerprint` names.
 * Answers true when the route should go on; false when the earlier answer has been replayed on
 * `reply`. Throws IDEMPOTENCY_KEY_REUSED or IDEMPOTENCY_KEY_IN_USE.
 */
export async function claimIdempotencyKey(
  store: IdempotencyStore,
  request: FastifyRequest,
  reply: FastifyReply,
  fingerprint: string,
): Promise<boolean> {
  const key = idempotencyKeyOf(request.headers['idempotency-key'])
  if (key === undefined) return true
  const accountId = request.auth.accountId
  const outcome = await reserveIdempotencyKey(store.db, store.limits, {
    accountId,
    key,
    requestHash: fingerprint,
  })
  switch (outcome.kind) {
    case 'reserved':
      request.idempotencyKey = { accountId, key }
      return true
    case 'replay':
      await reply
        .code(outcome.status)
        .type(outcome.status >= 400 ? 'application/problem+json' : 'application/json; charset=utf-8')
        .header(REPLAYED_HEADER, 'true')
        .send(outcome.body)
      return false
    case 'reused':
      throw new AppError(
        'IDEMPOTENCY_KEY_REUSED',
        'This Idempotency-Key was used for another request (other method, URL or body); use a new key.',
      )
    case 'in-use':
      throw new AppError(
        'IDEMPOTENCY_KEY_IN_USE',
        'A request with this Idempotency-Key is still running; retry once it has answered.',
        { 'retry-after': '1' },
      )
  }
}

/**
 * What a create route hands its service when the request reserved a key (else undefined): called
 * last inside the change's transaction with the created record, it stores the answer `answer`
 * builds from it — serialized by the route's response schema, so exactly the body that is sent —
 * in that transaction. Record, event and answer commit together: a crash at any point leaves
 * either all of them or a bare reservation that a retry runs again. A rollback leaves the
 * reservation, which the failed request's answer (5xx) then releases.
 */
export function answerInCommit<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  answer: (created: T) => unknown,
): InCommit<T> | undefined {
  const reserved = request.idempotencyKey
  if (!reserved) return undefined
  return async (tx, created) => {
    const body = String(reply.serialize(answer(created)))
    await completeIdempotencyKey(tx, { ...reserved, status: reply.statusCode, body })
    request.idempotencyKeyStored = true
  }
}

/**
 * onRoute hook of the API scope: routes marked `idempotent` get the hook that stores their answer,
 * and those marked `'body'` the one that takes the key before their own preHandlers (so a repeat
 * neither counts against a rate limit nor reaches the route).
 */
export function idempotentRoutes(store: IdempotencyStore) {
  const storeAnswer = answerStorer(store)
  const claimOnBody = async (request: FastifyRequest, reply: FastifyReply) => {
    const fingerprint = requestFingerprint(request.method, request.url, JSON.stringify(request.body ?? null))
    // A replayed answer has been sent: returning the reply ends the request here.
    if (!(await claimIdempotencyKey(store, request, reply, fingerprint))) return reply
    return undefined
  }
  return (route: RouteOptions): void => {
    const mode = route.config?.idempotent
    if (mode === undefined) return
    if (route.schema && !route.schema.hide) {
      const said = route.schema.description ?? ''
      route.schema.description = `${said}${said ? ' ' : ''}${IDEMPOTENCY_NOTE}`
      // Declared for OpenAPI; checked by idempotencyKeyOf (its own 400 code), not by the schema.
      route.schema.headers ??= KEY_HEADER
    }
    route.onSend = [storeAnswer, ...(route.onSend === undefined ? [] : [route.onSend].flat())]
    if (mode === 'body') {
      route.preHandler = [claimOnBody, ...(route.preHandler === undefined ? [] : [route.preHandler].flat())]
    }
  }
}

/**
 * Settles the key of a request that reserved one, as its answer is sent. A success was stored
 * with its change (answerInCommit). A refusal (4xx but 429) changed nothing and is stored now, to
 * be replayed. A 5xx or 429 frees the key, so that a retry runs the request again (a 429 tells
 * the caller to come back; replaying it would make the wait useless).
 */
function answerStorer(store: IdempotencyStore): onSendHookHandler {
  return async (request, reply, payload) => {
    const reserved = request.idempotencyKey
    if (!reserved) return payload
    request.idempotencyKey = null
    const status = reply.statusCode
    const stored = request.idempotencyKeyStored
    if (stored && status < 400) return payload
    if (!stored && status < 400) {
      // A route that did not hand answerInCommit to its change: storing its answer only now could
      // be lost to a crash after the commit, so the key goes and the bug shows in the log.
      store.log.error({ url: request.url }, 'an idempotent route answered without storing its answer')
    }
    try {
      if (status < 400 || status >= 500 || status === 429 || typeof payload !== 'string') {
        await releaseIdempotencyKey(store.db, reserved)
      } else {
        await completeIdempotencyKey(store.db, { ...reserved, status, body: payload })
      }
    } catch (error) {
      // The key stays reserved; the next request with it takes it over after the bound.
      store.log.error({ err: error }, 'storing the answer of an Idempotency-Key failed')
    }
    return payload
  }
}

// Webhook registrations: create, read, update (with secret rotation), delete. Every call is scoped
// to the caller: another account's webhook ID answers 404 exactly like an unknown one.
import { randomBytes } from 'node:crypto'
import type { EventName } from '../../contract/index.ts'
import {
  hashServiceToken,
  pauseQueuedDeliveries,
  releasePausedDeliveries,
  secretStrength,
  TargetRefused,
  vetUrl,
  wakeWorkers,
} from '../../delivery/index.ts'
import type { AppContext } from '../../platform/context.ts'
import { lockResource } from '../../platform/db/index.ts'
import { AppError } from '../../platform/errors.ts'
import type { InCommit } from '../../platform/idempotency.ts'
import { isId, newId } from '../../platform/ids.ts'
import * as repo from './repository.ts'

export const MAX_WEBHOOKS_PER_ACCOUNT = 100
/** After a rotation the previous secret keeps signing this long. */
const SECRET_ROTATION_OVERLAP_MS = 24 * 3600_000

export interface Owner {
  accountId: string
  email: string
}

export interface WebhookResourceShape {
  type: 'webhook'
  id: string
  attributes: {
    _id: string
    event: EventName
    url: string
    owner: string
    created: string
    disabled: boolean
    disabledReason: DisabledReason | null
    __v: number
  }
}

/** Why a webhook is disabled (webhooks.disabled_reason). */
type DisabledReason = 'owner' | 'gone' | 'failing'

const DISABLED_REASONS: readonly string[] = ['owner', 'gone', 'failing'] satisfies DisabledReason[]

function disabledReason(row: repo.WebhookRow): DisabledReason | null {
  if (row.disabled !== 1) return null
  // Every writer of the column writes one of these; any other value reads as the owner's doing.
  const reason = row.disabled_reason ?? 'owner'
  return DISABLED_REASONS.includes(reason) ? (reason as DisabledReason) : 'owner'
}

function toResource(row: repo.WebhookRow, ownerEmail: string): WebhookResourceShape {
  return {
    type: 'webhook',
    id: row.id,
    attributes: {
      _id: row.id,
      event: row.event as EventName,
      url: row.url,
      owner: ownerEmail,
      created: new Date(row.created_at).toISOString(),
      disabled: row.disabled === 1,
      disabledReason: disabledReason(row),
      __v: row.version,
    },
  }
}

/**
 * Checks a webhook URL (syntax, scheme, and where it points) and returns its normalized form.
 * The target is checked again at every delivery, DNS answers included.
 */
async function checkUrl(ctx: AppContext, raw: string): Promise<string> {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    throw new AppError('WEBHOOK_URL_INVALID', 'url must be an absolute http or https URL.')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError('WEBHOOK_URL_INVALID', 'url must use http or https.')
  }
  if (url.username !== '' || url.password !== '') {
    throw new AppError('WEBHOOK_URL_INVALID', 'url must not contain credentials.')
  }
  if (url.hostname === '') throw new AppError('WEBHOOK_URL_INVALID', 'url has no host.')
  url.hash = ''
  try {
    await vetUrl(url.href, { allowPrivate: ctx.config.webhookAllowPrivateUrls })
  } catch (error) {
    if (error instanceof TargetRefused) {
      if (error.code === 'E_DNS') {
        throw new AppError('WEBHOOK_URL_UNRESOLVABLE', `url: ${error.message}.`)
      }
      throw new AppError(
        'WEBHOOK_URL_FORBIDDEN',
        `url: ${error.message}; loopback, private and link-local targets are refused ` +
          '(TESSERA_WEBHOOK_ALLOW_PRIVATE_URLS=true lifts this, for development only).',
      )
    }
    throw error
  }
  return url.href
}

function checkSecret(secret: string): void {
  const weakness = secretStrength(secret)
  if (weakness) throw new AppError('WEAK_SECRET', `secretToken ${weakness}.`)
}

const notFound = (): AppError => new AppError('NOT_FOUND', 'No such webhook.')

export interface NewWebhook {
  event: EventName
  url: string
  /** Absent: generated (generateSecret) and answered once. */
  secretToken?: string
}

/** A created webhook, and the secret the server generated for it (only then). */
export interface CreatedWebhook {
  resource: WebhookResourceShape
  generatedSecret?: string
}

/** The Standard Webhooks form: `whsec_` + base64 of 32 random bytes (256 bits). */
function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`
}

/** `inCommit`: called last in the transaction with the created webhook (Idempotency-Key). */
export async function createWebhook(
  ctx: AppContext,
  owner: Owner,
  input: NewWebhook,
  inCommit?: InCommit<CreatedWebhook>,
): Promise<CreatedWebhook> {
  const generatedSecret = input.secretToken === undefined ? generateSecret() : undefined
  const secret = input.secretToken ?? generatedSecret ?? ''
  checkSecret(secret)
  const url = await checkUrl(ctx, input.url)
  // Deliberately slow (bcrypt): computed once here, outside the transaction.
  const serviceToken = await hashServiceToken(secret)
  const { db } = ctx
  return db.kysely.transaction().execute(async (tx) => {
    // Serializes registrations of one account so the limit and the duplicate check hold under
    // concurrency, on both dialects.
    await lockResource(db, tx, `tessera.webhooks.${owner.accountId}`)
    if (await repo.findDuplicate(tx, owner.accountId, input.event, url)) {
      throw new AppError('CONFLICT', `A webhook for ${input.event} at this url already exists.`)
    }
    if ((await repo.countOwnedWebhooks(tx, owner.accountId)) >= MAX_WEBHOOKS_PER_ACCOUNT) {
      throw new AppError(
        'WEBHOOK_LIMIT_REACHED',
        `An account can register at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one first.`,
      )
    }
    const now = Date.now()
    const row: repo.WebhookRow = {
      id: newId(now),
      owner_id: owner.accountId,
      event: input.event,
      url,
      secret,
      service_token: serviceToken,
      previous_secret: null,
      previous_secret_expires_at: null,
      disabled: 0,
      disabled_reason: null,
      failing_since: null,
      created_at: now,
      updated_at: now,
      version: 0,
    }
    await repo.insertWebhook(tx, row)
    const resource = toResource(row, owner.email)
    const created = generatedSecret === undefined ? { resource } : { resource, generatedSecret }
    await inCommit?.(tx, created)
    return created
  })
}

export async function listWebhooks(ctx: AppContext, owner: Owner): Promise<WebhookResourceShape[]> {
  const rows = await repo.listOwnedWebhooks(ctx.db.kysely, owner.accountId)
  return rows.map((row) => toResource(row, owner.email))
}

export async function getWebhook(ctx: AppContext, owner: Owner, id: string): Promise<WebhookResourceShape> {
  const row = isId(id) ? await repo.findOwnedWebhook(ctx.db.kysely, owner.accountId, id) : undefined
  if (!row) throw notFound()
  return toResource(row, owner.email)
}

export interface WebhookChanges {
  url?: string
  secretToken?: string
  disabled?: boolean
  __v?: number
}

export async function updateWebhook(
  ctx: AppContext,
  owner: Owner,
  id: string,
  changes: WebhookChanges,
): Promise<WebhookResourceShape> {
  if (!isId(id)) throw notFound()
  if (changes.secretToken !== undefined) checkSecret(changes.secretToken)
  const url = changes.url === undefined ? undefined : await checkUrl(ctx, changes.url)
  const serviceToken =
    changes.secretToken === undefined ? undefined : await hashServiceToken(changes.secretToken)
  const { db } = ctx
  const row = await db.kysely.transaction().execute(async (tx) => {
    await lockResource(db, tx, `tessera.webhooks.${owner.accountId}`)
    const current = await repo.findOwnedWebhook(tx, owner.accountId, id)
    if (!current) throw notFound()
    if (changes.__v !== undefined && changes.__v !== current.version) {
      throw new AppError('CONFLICT', `The webhook is at __v ${current.version}, not ${changes.__v}.`)
    }
    const now = Date.now()
    const set: Parameters<typeof repo.updateWebhook>[2] = {}
    if (url !== undefined && url !== current.url) {
      if (await repo.findDuplicate(tx, owner.accountId, current.event, url, id)) {
        throw new AppError('CONFLICT', `A webhook for ${current.event} at this url already exists.`)
      }
      set.url = url
    }
    if (
      changes.secretToken !== undefined &&
      serviceToken !== undefined &&
      changes.secretToken !== current.secret
    ) {
      set.secret = changes.secretToken
      set.service_token = serviceToken
      set.previous_secret = current.secret
      set.previous_secret_expires_at = now + SECRET_ROTATION_OVERLAP_MS
    }
    if (changes.disabled === true && current.disabled === 0) {
      set.disabled = 1
      set.disabled_reason = 'owner'
      await pauseQueuedDeliveries(tx, id, now)
    } else if (changes.disabled === false && current.disabled === 1) {
      set.disabled = 0
      set.disabled_reason = null
      set.failing_since = null
      // Events that happened while it was disabled go out now: no gaps.
      if ((await releasePausedDeliveries(tx, id, now)) > 0) await wakeWorkers(db, tx)
    }
    await repo.updateWebhook(tx, id, set, now)
    return repo.findOwnedWebhook(tx, owner.accountId, id)
  })
  if (!row) throw notFound()
  return toResource(row, owner.email)
}

export async function deleteWebhook(ctx: AppContext, owner: Owner, id: string): Promise<void> {
  // Deliveries and their attempts go with it (ON DELETE CASCADE).
  if (!isId(id) || !(await repo.deleteWebhook(ctx.db.kysely, owner.accountId, id))) throw notFound()
}

// `tessera trigger EVENT` and `tessera webhooks ls|deliveries|retry|recover`.
// Their routes need only the auth token: no session is opened, so no license is taken and the
// account's other session (a backend's) is not superseded.
import type { DeliveryStatus, Tessera, WebhookEventName } from '@tessera/client'
import { ClientUsageError, parse, resolveUrl, tokenClient } from './credentials.ts'

/** Runs `fn` with an auth-token-only client. */
async function withToken<T>(url: string, fn: (tessera: Tessera) => Promise<T>): Promise<T> {
  return fn(await tokenClient(url))
}

function out(line: string): void {
  process.stdout.write(`${line}\n`)
}

export async function trigger(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, {})
  const [event, extra] = positionals
  if (!event || extra !== undefined) throw new ClientUsageError('trigger needs one event name')
  await withToken(resolveUrl(values.url), async (tessera) => {
    // Like `stripe trigger`: every running `tessera listen` of the account hears of it...
    // The server checks the name: an unknown one answers 400 VALIDATION_FAILED listing the known ones.
    const sent = await tessera.testEvent(event as WebhookEventName)
    out(`sent test event ${sent.uuid} of ${event} to your event stream (tessera listen)`)
    // ...and so does the account's webhook for the event, if it has one.
    const hook = (await tessera.webhooks.list()).find((w) => w.attributes.event === event)
    if (!hook) return out(`no webhook of yours for ${event}: no test delivery queued`)
    const delivery = await tessera.webhooks.test(hook.id)
    out(`queued test delivery ${delivery._id} of ${event} to ${hook.attributes.url} (webhook ${hook.id})`)
    out(`follow it with: tessera webhooks deliveries ${hook.id}`)
  })
}

const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivering', 'succeeded', 'failed', 'paused']

export async function webhooksCommand(args: string[]): Promise<void> {
  const [action, ...rest] = args
  const { values, positionals } = parse(rest, {
    json: { type: 'boolean' },
    status: { type: 'string' },
    limit: { type: 'string' },
    cursor: { type: 'string' },
    since: { type: 'string' },
  })
  const [id, delivery] = positionals
  const url = resolveUrl(values.url)
  if (action === 'ls') {
    return withToken(url, async (tessera) => {
      const list = await tessera.webhooks.list()
      if (values.json) return out(JSON.stringify(list, null, 2))
      for (const w of list) {
        const a = w.attributes
        // `disabled:gone`, `disabled:failing`, `disabled:owner`: why, as the API's disabledReason says.
        const state = a.disabled ? `disabled:${a.disabledReason ?? 'owner'}` : 'enabled'
        out([w.id, a.event.padEnd(24), state.padEnd(16), a.url].join('  '))
      }
    })
  }
  if (!id) throw new ClientUsageError(`webhooks ${action ?? ''} needs a webhook ID`)
  if (action === 'deliveries') {
    const limit = Number(values.limit ?? 50)
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new ClientUsageError('--limit: 1 to 200')
    const status = STATUSES.find((s) => s === values.status)
    if (values.status !== undefined && !status)
      throw new ClientUsageError(`--status: one of ${STATUSES.join(', ')}`)
    return withToken(url, async (tessera) => {
      const cursor = values.cursor
      const page = await tessera.webhooks.deliveries(id, {
        limit,
        ...(status ? { status } : {}),
        ...(cursor ? { cursor } : {}),
      })
      if (values.json) return out(JSON.stringify(page, null, 2))
      for (const d of page.deliveries) {
        const last = d.lastStatusCode ?? d.lastErrorCode ?? '-'
        const test = d.test ? 'test' : '    '
        out(
          [
            d._id,
            d.event.padEnd(24),
            d.status.padEnd(10),
            test,
            `attempts ${d.attemptCount}`,
            `last ${last}`,
            d.created,
          ].join('  '),
        )
      }
      // On stderr: stdout stays one line per delivery for scripts.
      if (page.nextCursor)
        process.stderr.write(`more: tessera webhooks deliveries ${id} --cursor ${page.nextCursor}\n`)
    })
  }
  if (action === 'retry') {
    if (!delivery) throw new ClientUsageError('webhooks retry needs a webhook ID and a delivery ID')
    return withToken(url, async (tessera) => {
      const d = await tessera.webhooks.retry(id, delivery)
      out(`delivery ${d._id} is ${d.status}`)
    })
  }
  if (action === 'recover') {
    if (!values.since || Number.isNaN(Date.parse(values.since)))
      throw new ClientUsageError('webhooks recover needs --since <ISO date-time>')
    const since = new Date(values.since)
    return withToken(url, async (tessera) => out(JSON.stringify(await tessera.webhooks.recover(id, since))))
  }
  throw new ClientUsageError('webhooks needs ls, deliveries, retry or recover')
}

// Webhooks: list, create (one registration per picked event), edit URL/secret, disable/enable,
// delete; the delivery log with every attempt, retry, recover since a time, and a test event.
import { useEffect, useState } from 'preact/hooks'
import { client, WEBHOOK_EVENTS, type Webhook, type WebhookEvent } from '../api/index.ts'
import { GridHead } from '../ui/grid-head.tsx'
import { Notice } from '../ui/notice.tsx'
import { useAction } from '../ui/use-action.ts'
import { describeError, randomSecret, secretStrength } from '../util.ts'
import { DeliveryLog } from './deliveries.tsx'

export function WebhooksScreen() {
  const [hooks, setHooks] = useState<Webhook[] | null>(null)
  const [open, setOpen] = useState<string | null>(null)
  const action = useAction()

  const load = () =>
    client.webhooks
      .list()
      .then((list) => {
        setHooks(list)
        action.clear()
      })
      .catch(action.fail)
  useEffect(() => void load(), [])

  const act = (work: () => Promise<unknown>) => {
    void action.run(work).then(async (ok) => {
      if (ok) await load()
    })
  }

  const current = hooks?.find((h) => h._id === open) ?? null
  return (
    <section class="webhooks" aria-label="Webhooks">
      <h1>Webhooks</h1>
      <CreateWebhook onCreated={() => void load()} />
      <Notice kind="error" message={action.error} />
      {hooks === null ? (
        <p>Loading…</p>
      ) : hooks.length === 0 ? (
        <p class="empty">No webhooks yet.</p>
      ) : (
        <WebhookTable hooks={hooks} open={open} onOpen={setOpen} act={act} />
      )}
      {current && (
        <div class="hook-detail">
          <EditWebhook hook={current} onSaved={() => void load()} />
          <DeliveryLog hook={current} />
        </div>
      )}
    </section>
  )
}

function WebhookTable(props: {
  hooks: Webhook[]
  open: string | null
  onOpen: (id: string | null) => void
  act: (work: () => Promise<unknown>) => void
}) {
  const { open, act } = props
  return (
    <table class="grid hooks">
      <GridHead columns={['Event', 'URL', 'State']} />
      <tbody>
        {props.hooks.map((h) => (
          <tr key={h._id} class={open === h._id ? 'selected' : ''} data-webhook={h._id}>
            <td>{h.event}</td>
            <td class="url" title={h.url}>
              {h.url}
            </td>
            <td>
              {h.disabled ? (
                <span class="tag off" data-reason={h.disabledReason ?? ''}>
                  {disabledText(h.disabledReason)}
                </span>
              ) : (
                <span class="tag on">enabled</span>
              )}
            </td>
            <td class="buttons">
              <button
                type="button"
                class="ghost small"
                onClick={() => props.onOpen(open === h._id ? null : h._id)}
              >
                {open === h._id ? 'Close' : 'Deliveries'}
              </button>
              <button
                type="button"
                class="ghost small"
                onClick={() => act(() => client.webhooks.update(h._id, { disabled: !h.disabled }))}
              >
                {h.disabled ? 'Enable' : 'Disable'}
              </button>
              <button
                type="button"
                class="ghost small danger"
                onClick={() => {
                  if (window.confirm(`Delete the webhook to ${h.url}?`))
                    act(() => client.webhooks.remove(h._id))
                }}
              >
                Delete
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function SecretInput(props: { value: string; onInput: (v: string) => void; required?: boolean }) {
  const strength = secretStrength(props.value)
  return (
    <div class="secret">
      <label>
        Secret
        <input
          type="text"
          autoComplete="off"
          spellcheck={false}
          required={props.required}
          value={props.value}
          aria-describedby="secret-hint"
          onInput={(e) => props.onInput(e.currentTarget.value)}
        />
      </label>
      <button type="button" class="ghost small" onClick={() => props.onInput(randomSecret())}>
        Generate
      </button>
      <span id="secret-hint" class={`strength ${strength.ok ? 'ok' : 'weak'}`} aria-live="polite">
        {strength.label}
      </span>
    </div>
  )
}

function CreateWebhook(props: { onCreated: () => void }) {
  const [events, setEvents] = useState<Set<WebhookEvent>>(new Set(['file_optimized']))
  const [url, setUrl] = useState('')
  const [secret, setSecret] = useState('')
  const { busy, error, run } = useAction()

  async function submit(e: Event): Promise<void> {
    e.preventDefault()
    // One registration per event; the ones that failed are named together.
    const created = await run(async () => {
      const failed: string[] = []
      for (const event of events) {
        try {
          await client.webhooks.create(event, url.trim(), secret)
        } catch (err) {
          failed.push(`${event}: ${describeError(err)}`)
        }
      }
      if (failed.length > 0) throw new Error(failed.join(' '))
    })
    if (created) {
      setUrl('')
      setSecret('')
    }
    props.onCreated()
  }

  return (
    <form class="card create-hook" aria-label="New webhook" onSubmit={(e) => void submit(e)}>
      <h2>New webhook</h2>
      <fieldset>
        <legend>Events (one webhook per event)</legend>
        <div class="events">
          {WEBHOOK_EVENTS.map((ev) => (
            <label key={ev} class="check">
              <input
                type="checkbox"
                checked={events.has(ev)}
                onChange={(e) => {
                  const next = new Set(events)
                  if (e.currentTarget.checked) next.add(ev)
                  else next.delete(ev)
                  setEvents(next)
                }}
              />
              {ev}
            </label>
          ))}
        </div>
      </fieldset>
      <label>
        URL
        <input
          type="url"
          required
          placeholder="https://example.com/hooks/tessera"
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
      </label>
      <SecretInput value={secret} onInput={setSecret} required />
      <Notice kind="error" message={error} />
      <button type="submit" disabled={busy || events.size === 0}>
        {busy ? 'Creating…' : `Create ${events.size > 1 ? `${events.size} webhooks` : 'webhook'}`}
      </button>
    </form>
  )
}

function EditWebhook(props: { hook: Webhook; onSaved: () => void }) {
  const [url, setUrl] = useState(props.hook.url)
  const [secret, setSecret] = useState('')
  const action = useAction()
  useEffect(() => setUrl(props.hook.url), [props.hook._id])

  async function submit(e: Event): Promise<void> {
    e.preventDefault()
    action.clear()
    const changes: { url?: string; secretToken?: string } = {}
    if (url.trim() !== props.hook.url) changes.url = url.trim()
    if (secret) changes.secretToken = secret
    if (Object.keys(changes).length === 0) return
    const done = changes.secretToken ? 'Saved. The previous secret keeps signing for 24 h.' : 'Saved.'
    if (await action.run(() => client.webhooks.update(props.hook._id, changes), done)) {
      setSecret('')
      props.onSaved()
    }
  }

  return (
    <form class="card" aria-label="Edit webhook" onSubmit={(e) => void submit(e)}>
      <h2>Edit {props.hook.event}</h2>
      <label>
        URL
        <input type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      </label>
      <SecretInput value={secret} onInput={setSecret} />
      <p class="hint">Leave the secret empty to keep the current one.</p>
      <Notice kind="success" message={action.message} />
      <Notice kind="error" message={action.error} />
      <button type="submit">Save changes</button>
    </form>
  )
}

/** A disabled webhook's state in words: who or what disabled it. */
function disabledText(reason: Webhook['disabledReason']): string {
  if (reason === 'gone') return 'disabled: the receiver answered 410 Gone'
  if (reason === 'failing') return 'disabled: it kept failing'
  return 'disabled'
}

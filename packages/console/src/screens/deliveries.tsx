// A webhook's delivery log: newest first, each with its attempts (time, status, error code,
// response excerpt); retry one, recover since a time, send a test event.
import { useEffect, useRef, useState } from 'preact/hooks'
import { client, type Delivery, type DeliveryDetail, type Webhook } from '../api/index.ts'
import { GridHead } from '../ui/grid-head.tsx'
import { Notice } from '../ui/notice.tsx'
import { useAction } from '../ui/use-action.ts'
import { formatDate } from '../util.ts'

type Act = <T>(work: () => Promise<T>, done: string | ((result: T) => string)) => void

export function DeliveryLog(props: { hook: Webhook }) {
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null)
  const [detail, setDetail] = useState<DeliveryDetail | null>(null)
  const action = useAction()
  const id = props.hook._id
  // The open delivery's ID for the refresh, in a ref: as an effect dependency, opening a delivery
  // restarted the effect, which closed it, and its load opened it again (a request loop).
  const openId = useRef<string | null>(null)

  const load = async () => {
    try {
      const page = await client.webhooks.deliveries(id, { limit: 50 })
      setDeliveries(page.deliveries)
      const open = openId.current
      if (open) {
        const fresh = await client.webhooks.delivery(id, open)
        if (openId.current === open) setDetail(fresh)
      }
    } catch (e) {
      action.fail(e)
    }
  }
  useEffect(() => {
    openId.current = null
    setDetail(null)
    void load()
    const timer = setInterval(() => void load(), 3000)
    return () => clearInterval(timer)
  }, [id])

  async function openAttempts(deliveryId: string): Promise<void> {
    openId.current = deliveryId
    try {
      const fresh = await client.webhooks.delivery(id, deliveryId)
      if (openId.current === deliveryId) setDetail(fresh)
    } catch (e) {
      action.fail(e)
    }
  }

  const act: Act = (work, done) => {
    void action.run(work, done).then(async (ok) => {
      if (ok) await load()
    })
  }

  return (
    <section class="card deliveries" aria-label="Delivery log">
      <h2>Deliveries</h2>
      <DeliveryActions hook={id} act={act} />
      <Notice kind="success" message={action.message} />
      <Notice kind="error" message={action.error} />
      {deliveries === null ? (
        <p>Loading…</p>
      ) : deliveries.length === 0 ? (
        <p class="empty">No deliveries yet.</p>
      ) : (
        <DeliveryTable
          deliveries={deliveries}
          onAttempts={(d) => void openAttempts(d)}
          onRetry={(d) => act(() => client.webhooks.retry(id, d), 'Retry queued.')}
        />
      )}
      {detail && (
        <Attempts
          detail={detail}
          onClose={() => {
            openId.current = null
            setDetail(null)
          }}
        />
      )}
    </section>
  )
}

function DeliveryActions(props: { hook: string; act: Act }) {
  const [since, setSince] = useState(() => new Date(Date.now() - 3_600_000).toISOString().slice(0, 16))
  const id = props.hook
  return (
    <div class="buttons">
      <button
        type="button"
        class="ghost"
        onClick={() => props.act(() => client.webhooks.test(id), 'Test event queued.')}
      >
        Send test event
      </button>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault()
          const iso = new Date(since).toISOString()
          props.act(
            () => client.webhooks.recover(id, iso),
            (r) =>
              `${r.recovered} deliveries queued again${r.reenabled ? '; the webhook is enabled again' : ''}.`,
          )
        }}
      >
        <label>
          Recover since{' '}
          <input type="datetime-local" value={since} onInput={(e) => setSince(e.currentTarget.value)} />
        </label>
        <button type="submit" class="ghost">
          Recover
        </button>
      </form>
    </div>
  )
}

function DeliveryTable(props: {
  deliveries: Delivery[]
  onAttempts: (delivery: string) => void
  onRetry: (delivery: string) => void
}) {
  return (
    <div class="table-scroll">
      <table class="grid">
        <GridHead columns={['Created', 'Event', 'Status', 'Attempts', 'Last answer']} />
        <tbody>
          {props.deliveries.map((d) => (
            <tr key={d._id} data-delivery={d._id} data-status={d.status}>
              <td>{formatDate(d.created)}</td>
              <td>
                {d.event}
                {d.test ? ' (test)' : ''}
              </td>
              <td>
                <span class={`tag ${d.status}`}>{d.status}</span>
              </td>
              <td>{d.attemptCount}</td>
              <td>{d.lastErrorCode ?? (d.lastStatusCode === null ? '—' : `HTTP ${d.lastStatusCode}`)}</td>
              <td class="buttons">
                <button type="button" class="ghost small" onClick={() => props.onAttempts(d._id)}>
                  Attempts
                </button>
                <button type="button" class="ghost small" onClick={() => props.onRetry(d._id)}>
                  Retry
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function Attempts(props: { detail: DeliveryDetail; onClose: () => void }) {
  const detail = props.detail
  return (
    <section class="attempts" aria-label="Attempts">
      <h3>
        Attempts of {detail.event} <code>{detail.uuid}</code>
      </h3>
      <button type="button" class="ghost small" onClick={props.onClose}>
        Close attempts
      </button>
      <ol>
        {detail.attempts.map((a) => (
          <li key={a.attempt} data-attempt={a.attempt}>
            <strong>#{a.attempt}</strong> {formatDate(a.startedAt)} · {a.durationMs} ms ·{' '}
            {a.statusCode === null ? 'no answer' : `HTTP ${a.statusCode}`}
            {a.errorCode && <span class="tag failed"> {a.errorCode}</span>}
            {a.errorMessage && <span class="hint"> {a.errorMessage}</span>}
            {a.responseExcerpt && <pre>{a.responseExcerpt}</pre>}
          </li>
        ))}
      </ol>
    </section>
  )
}

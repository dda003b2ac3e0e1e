// Who is here in the live session, in the viewer's head bar: a list of people (an avatar with their
// initials in their colour, their name, "(you)", "guest", "follows you"). Each other person is a
// toggle button that follows their camera (Enter or a click; Escape, a click again or any own move
// stops). What changes is said through a polite live region.
import { useState } from 'preact/hooks'
import type { Participant } from '../api/live.ts'
import type { LiveView } from './live-session.ts'

function initials(name: string): string {
  const words = name.split(/[\s._@-]+/).filter(Boolean)
  const letters = words.length > 1 ? `${words[0]?.[0] ?? ''}${words[1]?.[0] ?? ''}` : name.slice(0, 2)
  return letters.toUpperCase()
}

/** White or near-black initials, whichever stands out more on the participant's colour. */
function inkOn(color: string): string {
  const hex = /^#?([0-9a-f]{6})$/i.exec(color)?.[1]
  if (!hex) return '#ffffff'
  const channel = (i: number) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }
  const luminance = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4)
  // Contrast with white is 1.05 / (L + 0.05); with #111 it is (L + 0.05) / 0.0556.
  return 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.0556 ? '#ffffff' : '#111111'
}

function Face(props: { person: Participant }) {
  const { color, name } = props.person
  return (
    <span class="presence-face" aria-hidden="true" style={{ background: color, color: inkOn(color) }}>
      {initials(name)}
    </span>
  )
}

function statusText(live: LiveView): string {
  if (live.status === 'connecting') return 'Joining the live session…'
  if (live.status === 'reconnecting') return 'Live session lost, reconnecting…'
  if (live.status === 'refused') return `No live session: ${live.refusal}`
  const n = live.participants.length
  return n <= 1 ? 'Live: only you here' : `Live: ${n} here`
}

function Person(props: { person: Participant; live: LiveView }) {
  const { person, live } = props
  const you = person.participantId === live.you
  const extras = (
    <>
      {person.guest && <span class="presence-tag">guest</span>}
      {!you && live.you && person.following === live.you && <span class="presence-tag">follows you</span>}
    </>
  )
  if (you || !live.settings.avatars) {
    return (
      <span class="presence-person" data-participant={person.name} data-id={person.participantId}>
        <Face person={person} />
        <span class="presence-name">
          {person.name}
          {you && ' (you)'}
        </span>
        {extras}
      </span>
    )
  }
  const followed = live.following === person.participantId
  return (
    <button
      type="button"
      class="presence-person"
      data-participant={person.name}
      data-id={person.participantId}
      aria-pressed={followed}
      title={followed ? `Stop following ${person.name}` : `Follow ${person.name}'s view`}
      onClick={() => live.follow(followed ? null : person.participantId)}
    >
      <Face person={person} />
      <span class="presence-name">
        <span class="sr-only">Follow </span>
        {person.name}
      </span>
      {extras}
    </button>
  )
}

const NAME_KEY = 'tessera-guest-name'

/** A guest names themselves before joining (remembered for the next link in this browser). */
function GuestJoin(props: { onJoin: (name: string) => void }) {
  const [name, setName] = useState(() => localStorage.getItem(NAME_KEY) ?? '')
  return (
    <form
      class="presence-join"
      aria-label="Join the live session"
      onSubmit={(e) => {
        e.preventDefault()
        const given = name.trim()
        if (!given) return
        localStorage.setItem(NAME_KEY, given)
        props.onJoin(given)
      }}
    >
      <label class="presence-join-label">
        Your name{' '}
        <input
          class="presence-name-field"
          value={name}
          maxLength={40}
          required
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </label>
      <button type="submit" class="small">
        Join live session
      </button>
    </form>
  )
}

export function PresenceStrip(props: { live: LiveView }) {
  const { live } = props
  // A link without live meetings: no live session, nothing to show.
  if (!live.available) return null
  if (live.needsName) return <GuestJoin onJoin={live.joinAs} />
  // Me first, then the others in the order they came.
  const people = [...live.participants].sort(
    (a, b) => Number(b.participantId === live.you) - Number(a.participantId === live.you),
  )
  const followed = live.participants.find((p) => p.participantId === live.following)
  return (
    <section class="presence" aria-label="Live session" data-live={live.status}>
      <span class="presence-status">{statusText(live)}</span>
      {people.length > 0 && (
        <ul class="presence-list" aria-label="People here">
          {people.map((p) => (
            <li key={p.participantId}>
              <Person person={p} live={live} />
            </li>
          ))}
        </ul>
      )}
      {followed && (
        <span class="presence-following">
          Following {followed.name}
          <button type="button" class="ghost small" onClick={() => live.follow(null)}>
            Stop
          </button>
        </span>
      )}
      <p class="sr-only" aria-live="polite">
        {live.announcement}
      </p>
    </section>
  )
}

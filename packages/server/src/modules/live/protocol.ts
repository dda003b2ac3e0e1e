// The live protocol's messages (docs/live.md "Messages"): what a client may send, checked by hand
// (a handful of small shapes, read up to 20 times a second per client), and what the server sends.

type Vec3 = [number, number, number]

export interface Camera {
  position: Vec3
  target: Vec3
  up?: Vec3
  fov?: number
  ortho?: boolean
}

export interface Hello {
  type: 'hello'
  name?: string
  linkSession?: string
  token?: string
  session?: string
  resume?: string
}

export type ClientMessage =
  | Hello
  | ({ type: 'camera' } & Camera)
  | { type: 'selection'; ids: string[] }
  | { type: 'follow'; participantId: string | null }
  | { type: 'ping' }

/** A participant as the protocol shows it. */
export interface ParticipantView {
  participantId: string
  name: string
  email?: string
  guest: boolean
  color: string
  camera?: Camera
  selection?: string[]
  following?: string | null
}

export interface LiveSettingsView {
  avatars: boolean
  selection: boolean
}

const MAX_SELECTION_IDS = 200
const MAX_ID_CHARS = 128
const MAX_TOKEN_CHARS = 2048
const MAX_GUEST_NAME = 40
const PARTICIPANT_ID = /^[0-9a-f]{32}$/

export class BadMessage extends Error {}

function fail(detail: string): never {
  throw new BadMessage(detail)
}

function vec3(value: unknown, field: string): Vec3 {
  if (!Array.isArray(value) || value.length !== 3) fail(`${field} must be [x, y, z]`)
  for (const n of value)
    if (typeof n !== 'number' || !Number.isFinite(n)) fail(`${field} must hold finite numbers`)
  return value as Vec3
}

function optionalText(value: unknown, field: string, max: number): string | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string' || value.length > max)
    fail(`${field} must be a string of at most ${max} characters`)
  return value
}

function camera(raw: Record<string, unknown>): Camera {
  const out: Camera = { position: vec3(raw.position, 'position'), target: vec3(raw.target, 'target') }
  if (raw.up !== undefined) out.up = vec3(raw.up, 'up')
  if (raw.fov !== undefined) {
    if (typeof raw.fov !== 'number' || !(raw.fov >= 1 && raw.fov <= 179)) fail('fov must be 1 to 179 degrees')
    out.fov = raw.fov
  }
  if (raw.ortho !== undefined) {
    if (typeof raw.ortho !== 'boolean') fail('ortho must be a boolean')
    out.ortho = raw.ortho
  }
  return out
}

function selection(raw: Record<string, unknown>): string[] {
  const ids = raw.ids
  if (!Array.isArray(ids) || ids.length > MAX_SELECTION_IDS)
    fail(`ids must be an array of at most ${MAX_SELECTION_IDS}`)
  for (const id of ids) {
    if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_CHARS) {
      fail(`each id must be a string of 1 to ${MAX_ID_CHARS} characters`)
    }
  }
  return [...new Set(ids as string[])]
}

function hello(raw: Record<string, unknown>): Hello {
  const resume = optionalText(raw.resume, 'resume', 32)
  if (resume !== undefined && !PARTICIPANT_ID.test(resume)) fail('resume must be a participant id')
  const out: Hello = { type: 'hello' }
  const name = optionalText(raw.name, 'name', 200)
  const linkSession = optionalText(raw.linkSession, 'linkSession', MAX_TOKEN_CHARS)
  const token = optionalText(raw.token, 'token', MAX_TOKEN_CHARS)
  const session = optionalText(raw.session, 'session', MAX_TOKEN_CHARS)
  if (name !== undefined) out.name = name
  if (linkSession !== undefined) out.linkSession = linkSession
  if (token !== undefined) out.token = token
  if (session !== undefined) out.session = session
  if (resume !== undefined) out.resume = resume
  return out
}

/** A client's message from its text; throws BadMessage. */
export function parseClientMessage(text: string): ClientMessage {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch {
    fail('not JSON')
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail('a message is a JSON object')
  const message = raw as Record<string, unknown>
  switch (message.type) {
    case 'hello':
      return hello(message)
    case 'camera':
      return { type: 'camera', ...camera(message) }
    case 'selection':
      return { type: 'selection', ids: selection(message) }
    case 'follow': {
      const id = message.participantId
      if (id !== null && (typeof id !== 'string' || !PARTICIPANT_ID.test(id))) {
        fail('participantId must be a participant id or null')
      }
      return { type: 'follow', participantId: id }
    }
    case 'ping':
      return { type: 'ping' }
    default:
      return fail('unknown type (hello, camera, selection, follow, ping)')
  }
}

/**
 * A guest's name as others see it: Unicode-normalized, control and formatting characters removed,
 * runs of spaces made one, trimmed, at most MAX_GUEST_NAME characters; "Guest" when nothing is left.
 */
export function cleanGuestName(raw: string | undefined): string {
  const cleaned = (raw ?? '')
    .normalize('NFC')
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, '')
    .replace(/\s+/gu, ' ')
    .trim()
  const chars = [...cleaned].slice(0, MAX_GUEST_NAME).join('').trim()
  return chars === '' ? 'Guest' : chars
}

// Saturated hues apart from each other, from the usual model colours (no brown, no grey) and from
// the blue the console outlines your own selection in (so no blue: another's selection would look
// like yours).
const PALETTE = ['#e6194b', '#3cb44b', '#f58231', '#911eb4', '#42d4f4', '#f032e6', '#469990']

/**
 * A participant's colour: the one `key` (an account, or a guest connection) hashes to, unless someone
 * on the file already shows it — then the first colour nobody there shows, so people tell each other
 * apart (two joins racing on two processes can still meet; with more than 7 people colours repeat).
 */
export function colorOf(key: string, taken: ReadonlySet<string> = new Set()): string {
  let hash = 0
  for (let i = 0; i < key.length; i++) hash = (hash * 31 + key.charCodeAt(i)) >>> 0
  const preferred = PALETTE[hash % PALETTE.length] ?? '#e6194b'
  if (!taken.has(preferred)) return preferred
  return PALETTE.find((color) => !taken.has(color)) ?? preferred
}

/** The close frame's number for a `closed` code (docs/live.md "Close codes"). */
export function closeNumber(code: string, status: number): number {
  if (code === 'LEFT') return 1000
  if (code === 'SERVER_SHUTTING_DOWN') return 1001
  if (code === 'MESSAGE_TOO_LARGE') return 1009
  if (code === 'IDLE_TIMEOUT' || code === 'HELLO_TIMEOUT') return 4408
  if (code === 'BAD_MESSAGE') return 4400
  if (status === 401 || status === 403 || status === 404 || status === 429) return 4000 + status
  return 1011
}

// The settings of live sessions (docs/live.md "Bounds"): declared here, assembled and parsed once at
// start-up with every other owner's by app/config.ts (platform/settings.ts describes the shape).
import { duration, integer, type Setting } from '../../platform/settings.ts'

declare module '../../platform/config.ts' {
  interface Config {
    /** Participants of one file, all server processes together (more: LIVE_FILE_FULL). */
    liveParticipantsPerFile: number
    /** Live connections of one account in one process (more: LIVE_CONNECTIONS_LIMIT). */
    liveConnectionsPerAccount: number
    /** Live connections of one link's guests in one process (more: LIVE_CONNECTIONS_LIMIT). */
    liveGuestsPerLink: number
    /** Camera updates relayed per participant and second (more are coalesced). */
    liveCameraRate: number
    /** Other messages per connection and second (bursts of twice that; more are dropped). */
    liveMessageRate: number
    /** Largest message a client may send, in bytes (more: the connection closes). */
    liveMessageBytes: number
    /** No message and no pong for this long: the connection closes. */
    liveIdleMs: number
    /** Every participant's access is read again this often (a net under the change feeds). */
    liveRecheckMs: number
  }
}

export const liveSettings = [
  {
    name: 'TESSERA_LIVE_PARTICIPANTS_PER_FILE',
    key: 'liveParticipantsPerFile',
    default: '50',
    help: 'participants of one live session, all processes together (more: LIVE_FILE_FULL)',
    parse: integer(1, 1000),
  },
  {
    name: 'TESSERA_LIVE_CONNECTIONS_PER_ACCOUNT',
    key: 'liveConnectionsPerAccount',
    default: '10',
    help: 'live connections per account and process (more: LIVE_CONNECTIONS_LIMIT)',
    parse: integer(1, 10_000),
  },
  {
    name: 'TESSERA_LIVE_GUESTS_PER_LINK',
    key: 'liveGuestsPerLink',
    default: '25',
    help: "live connections of one link's guests per process (more: LIVE_CONNECTIONS_LIMIT)",
    parse: integer(1, 10_000),
  },
  {
    name: 'TESSERA_LIVE_CAMERA_RATE',
    key: 'liveCameraRate',
    default: '20',
    help: 'camera updates relayed per participant and second (more are coalesced to the latest)',
    parse: integer(1, 60),
  },
  {
    name: 'TESSERA_LIVE_MESSAGE_RATE',
    key: 'liveMessageRate',
    default: '30',
    help: 'other live messages per connection and second, bursts of twice that (more are dropped)',
    parse: integer(1, 1000),
  },
  {
    name: 'TESSERA_LIVE_MESSAGE_BYTES',
    key: 'liveMessageBytes',
    default: '4096',
    help: 'largest live message a client may send, in bytes (more: MESSAGE_TOO_LARGE)',
    // A relayed message must fit one PostgreSQL NOTIFY (postgres/bus.ts packs at most 7,900 bytes).
    parse: integer(256, 7_000),
  },
  {
    name: 'TESSERA_LIVE_IDLE',
    key: 'liveIdleMs',
    default: '60s',
    help: 'a live connection with no message and no pong for this long is closed (IDLE_TIMEOUT)',
    parse: duration(100),
  },
  {
    name: 'TESSERA_LIVE_RECHECK',
    key: 'liveRecheckMs',
    default: '10s',
    help: "how often every live participant's access is read again",
    parse: duration(100),
  },
] satisfies Setting[]

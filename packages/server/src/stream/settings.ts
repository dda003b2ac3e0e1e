// The settings the live stream layer owns: bounds on the streams a process holds and on what one
// slow reader may make it buffer (hub.ts). Declared here, assembled and parsed once at start-up with
// every other owner's by app/config.ts (platform/settings.ts describes the shape).
import { duration, integer, type Setting, size } from '../platform/settings.ts'

declare module '../platform/config.ts' {
  interface Config {
    /** Open streams one account may hold per process (more: 429 STREAM_LIMIT_REACHED). */
    streamsPerAccount: number
    /** Open streams per process, all accounts together (more: 429 STREAMS_BUSY). */
    streamsMax: number
    /** A `: ping` comment this often on every stream. */
    streamHeartbeatMs: number
    /** A stream whose unsent bytes pass this is cut off (the reader resumes with Last-Event-ID). */
    streamBufferLimit: number
    /** SQLite: how often the hub looks for events committed by other processes on the same file. */
    streamPollMs: number
  }
}

export const streamSettings = [
  {
    name: 'TESSERA_STREAMS_PER_ACCOUNT',
    key: 'streamsPerAccount',
    default: '5',
    help: 'open event streams per account and process (more: 429 STREAM_LIMIT_REACHED)',
    parse: integer(1, 10_000),
  },
  {
    name: 'TESSERA_STREAMS_MAX',
    key: 'streamsMax',
    default: '1000',
    help: 'open event streams per process (more: 429 STREAMS_BUSY)',
    parse: integer(1, 1_000_000),
  },
  {
    name: 'TESSERA_STREAM_HEARTBEAT',
    key: 'streamHeartbeatMs',
    default: '15s',
    help: 'interval of the `: ping` comment on every event stream',
    parse: duration(10),
  },
  {
    name: 'TESSERA_STREAM_BUFFER_LIMIT',
    key: 'streamBufferLimit',
    default: '1MiB',
    help: 'unsent bytes after which a slow event stream reader is disconnected',
    parse: size(4096, '4KiB'),
  },
  {
    name: 'TESSERA_STREAM_POLL',
    key: 'streamPollMs',
    default: '250ms',
    help: 'SQLite: how often event streams look for events committed by other processes',
    parse: duration(10),
  },
] satisfies Setting[]

// The settings events/ owns: the retry schedule (the outbox schedules each delivery's first attempt by
// it), what the event log keeps (retention.ts) and the bounds of the live event stream
// (stream-hub.ts). Declared here, assembled and parsed once at start-up with every other owner's by
// app/config.ts (platform/settings.ts describes the shape).
import { duration, integer, type Setting, size } from '../platform/settings.ts'
import { parseDuration } from '../platform/units.ts'

declare module '../platform/config.ts' {
  interface Config {
    webhookRetryScheduleMs: number[]
    /** Events (with their finished deliveries and stream rows) older than this are pruned. */
    eventRetentionMs: number
    /** At most this many events are kept; the oldest finished ones beyond it are pruned. */
    eventMaxRows: number
    /** A deleted file's finished events are pruned once this old (its readers lost the file). */
    eventDeletedFileRetentionMs: number
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

export const eventSettings = [
  {
    name: 'TESSERA_WEBHOOK_RETRY_SCHEDULE',
    key: 'webhookRetryScheduleMs',
    default: '0s,5s,5m,30m,2h,5h,10h,10h',
    help: 'delay before each delivery attempt (comma-separated durations)',
    parse: (raw) => {
      const steps = raw.split(',').map((step) => parseDuration(step))
      if (steps.length === 0 || steps.length > 50) throw new Error('must list 1 to 50 durations')
      return steps
    },
  },
  {
    name: 'TESSERA_EVENT_RETENTION',
    key: 'eventRetentionMs',
    default: '30d',
    help: 'events, their finished deliveries (the delivery log) and stream rows are pruned past this age',
    parse: duration(3_600_000),
  },
  {
    name: 'TESSERA_EVENT_MAX_ROWS',
    key: 'eventMaxRows',
    default: '1000000',
    help: 'events kept at most; the oldest finished ones beyond it are pruned',
    parse: integer(1000),
  },
  {
    name: 'TESSERA_EVENT_DELETED_FILE_RETENTION',
    key: 'eventDeletedFileRetentionMs',
    default: '1h',
    help: 'a deleted file’s events are pruned once this old and delivered',
    parse: duration(0),
  },
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

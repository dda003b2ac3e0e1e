// The settings events/ owns: the retry schedule (the outbox schedules each delivery's first attempt by
// it) and what the event log keeps (retention.ts). Declared here, assembled and parsed once at start-up with every other owner's by
// app/config.ts (platform/settings.ts describes the shape).
import { duration, integer, type Setting } from '../platform/settings.ts'
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
] satisfies Setting[]

// Waking the live event stream hubs when events are written.
import { WakeChannel } from '../platform/jobs.ts'

/**
 * Wakes the live event stream hubs (stream/hub.ts). On PostgreSQL the emit statement sends its
 * NOTIFY itself (postgres/outbox-store.ts); on SQLite emitEvent wakes this process's hub at commit.
 */
export const streamChannel = new WakeChannel('tessera_event_stream')

// `changed` notices and access changes, heard from the event outbox (events/subscribers.ts): the
// hook of each database (sqlite/changes.ts, postgres/changes.ts) relays, once the emitting
// transaction commits, what an event says changed on its file. Access changes no event says (a file
// deleted, public live meetings turned off: modules/files access-notices.ts) go on the relay from
// the process that made them, once committed, to every process's hub: each re-checks that file's
// participants now.

import { type EmitHook, type OutboxSubscriber, onEmit } from '../../events/index.ts'
import { chosenPerDatabase, type Db } from '../../platform/db/index.ts'
import { onFileAccessChanged } from '../files/index.ts'
import { liveBusOf } from './open-bus.ts'
import { postgresChanges } from './postgres/changes.ts'
import { sqliteChanges } from './sqlite/changes.ts'

const hookOf = chosenPerDatabase<EmitHook>({ sqlite: sqliteChanges, postgres: postgresChanges })

const liveChanges: OutboxSubscriber = { hookFor: (db: Db) => hookOf(db) }

function accessChanged(db: Db, fileId: string): void {
  liveBusOf(db).publish({ o: 'x', f: fileId, k: 'access', i: fileId })
}

/** Registers the hooks for every change of this process (server-context.ts, beside the deliveries'). */
export function subscribeLiveChanges(): void {
  onEmit(liveChanges)
  onFileAccessChanged(accessChanged)
}

// Telling layers that hold files open (live sessions' WebSockets) that who may be on a file changed
// without an event saying so: the file was deleted, or its owner turned public live meetings off.
// Files cannot import them (docs/architecture.md); they register here (modules/live changes.ts) and
// hear it once the change committed, in the process that made it (they relay it to the others).
import type { Db } from '../../platform/db/index.ts'

type AccessListener = (db: Db, fileId: string) => void

const listeners = new Set<AccessListener>()

/** Calls `listener` after every committed change of this kind, in this process, from now on. */
export function onFileAccessChanged(listener: AccessListener): void {
  listeners.add(listener)
}

/** After the commit: who may be on `fileId` changed (a listener's failure is not the caller's). */
export function fileAccessChanged(db: Db, fileId: string): void {
  for (const listener of listeners) {
    try {
      listener(db, fileId)
    } catch {
      // A listener relays a notice; its own net (a periodic re-check) covers what it misses.
    }
  }
}

// Locked views: an account that may write a configuration locks it, and until its holder or the
// file's owner unlocks it, nobody else may update or delete it (409 CONFIGURATION_LOCKED, naming the
// holder). `lockedBy` shows the holder's e-mail as it was when they locked; the holder is kept by
// account (`locked_by_id`), so a later change of their e-mail does not lock them out. Lock and
// unlock go through the file-items update (the item's lock, then the file's; one transaction with
// its configuration_updated {old, new}): two lockers at once queue on the item's lock, and the second
// finds the first one's lock. `__v` moves; lastModification* do not (the view did not change).
import type { AppContext } from '../../platform/context.ts'
import { AppError } from '../../platform/errors.ts'
import type { ItemCaller } from '../file-items/index.ts'
import type { ConfigurationRow } from './repository.ts'
import { configurations } from './service.ts'

/** 409 when another account holds the configuration's lock (the holder may change it, and delete it). */
export function refuseLockedByOther(row: ConfigurationRow, caller: ItemCaller): void {
  if (row.locked_by_id === null || row.locked_by_id === caller.accountId) return
  throw new AppError(
    'CONFIGURATION_LOCKED',
    `The configuration is locked by ${row.locked_by ?? 'another account'}; ` +
      'they or the file’s owner can unlock it (POST /file/configuration/unlock/).',
  )
}

/** Locks a configuration the caller may write; locking it again (its holder) changes nothing. */
export function lockConfiguration(ctx: AppContext, caller: ItemCaller, id: string) {
  return configurations.update(ctx, caller, id, {
    version: undefined,
    plan: (_record, row) => ({
      unchanged: row.locked_by_id === caller.accountId,
      listsChanged: false,
      // After the write check: a reader who may not write learns 403, not who holds the lock.
      authorize: () => refuseLockedByOther(row, caller),
      columns: () => ({ locked_by: caller.email, locked_by_id: caller.accountId }),
    }),
  })
}

/** Releases a configuration's lock: its holder or the file's owner; an unlocked one stays as it is. */
export function unlockConfiguration(ctx: AppContext, caller: ItemCaller, id: string) {
  return configurations.update(ctx, caller, id, {
    version: undefined,
    plan: (_record, row, who) => ({
      unchanged: row.locked_by_id === null,
      listsChanged: false,
      authorize: () => {
        if (row.locked_by_id === caller.accountId || who.isOwner) return
        throw new AppError(
          'FORBIDDEN',
          `The configuration is locked by ${row.locked_by ?? 'another account'}; only they or the ` +
            'file’s owner may unlock it.',
        )
      },
      columns: () => ({ locked_by: null, locked_by_id: null }),
    }),
  })
}

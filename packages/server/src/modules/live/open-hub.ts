// Making the process's live hub: its relay on the database, the file settings it reads, its guard.
import type { AppContext } from '../../platform/context.ts'
import { liveSharingOf } from '../configurations/index.ts'
import type { LiveGuard } from './guard.ts'
import { LiveHub } from './hub.ts'
import { liveBusOf } from './open-bus.ts'

export function createLiveHub(ctx: AppContext, guard: LiveGuard): LiveHub {
  const bus = liveBusOf(ctx.db)
  bus.useLog(ctx.log)
  const hub = new LiveHub({
    bus,
    config: ctx.config,
    log: ctx.log,
    settingsOf: (fileId) => liveSharingOf(ctx.db.kysely, fileId),
    recheck: (participants) => guard.recheck(participants),
    stopped: () => guard.stop(),
  })
  hub.start()
  guard.start(hub)
  return hub
}

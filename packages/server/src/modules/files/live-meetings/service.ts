// Public live meetings: whether link guests may join the file's live sessions (the record's
// `allowLivePublicMeetings`, docs/live.md "Connecting"). The owner's alone, as the link is. No event:
// none of the event names says it (docs/webhooks.md), and the link guests it concerns hear no events;
// the record carries it in the next event about the file. Turning it off tells the live sessions at
// once (access-notices.ts), which close the file's guests on every process within a second.
import type { AppContext } from '../../../platform/context.ts'
import { requireFileAccess } from '../access.ts'
import { fileAccessChanged } from '../access-notices.ts'
import { listingsChanged } from '../listing/changes.ts'
import { lockFile } from '../locks.ts'
import * as repo from '../repository.ts'
import { type FileViewShape, viewOf } from '../service.ts'

/** Owner only; setting what is already set changes nothing (no new `__v`). */
export async function setLiveMeetings(
  ctx: AppContext,
  accountId: string,
  fileId: string,
  allow: boolean,
): Promise<FileViewShape> {
  const { db } = ctx
  // Access first, outside any lock: a stranger's or a reader's call takes no lock at all.
  await requireFileAccess(db.kysely, accountId, fileId, 'owner')
  const { view, turnedOff } = await db.kysely.transaction().execute(async (tx) => {
    await lockFile(db, tx, fileId)
    const { file } = await requireFileAccess(tx, accountId, fileId, 'owner')
    const was = file.allow_live_public_meetings === 1
    if (was !== allow) await repo.setLiveMeetings(tx, fileId, allow, Date.now())
    return { view: await viewOf(tx, fileId, accountId), turnedOff: was && !allow }
  })
  if (turnedOff) fileAccessChanged(db, fileId)
  await listingsChanged(ctx)
  return view
}

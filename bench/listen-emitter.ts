// The listen bench's second emitter (bench/listen.ts --emitter outbox), run inside the API server
// child of bench/api.ts: `attribute_updated` events committed straight through the outbox
// (emitEvent, each in a transaction of its own, as a write route does after its own statements),
// paced per millisecond slot, at most `concurrency` transactions open. It reaches rates the HTTP
// write path cannot on 2 cores (on PostgreSQL a whole attribute write is ~10 round trips), so the
// stream itself is measured at the rate asked for.
import type { FastifyInstance } from 'fastify'
import { emitEvent } from '../packages/server/src/events/index.ts'
import { pacedRun } from './pacing.ts'

export interface EmitRequest {
  type: 'emit'
  rate: number
  seconds: number
  concurrency: number
}

export interface EmitReport {
  type: 'emitted'
  committed: number
  skipped: number
  ms: number
}

export async function emitAtRate(
  app: FastifyInstance,
  owner: { id: string },
  fileId: string,
  request: EmitRequest,
): Promise<EmitReport> {
  const report: EmitReport = { type: 'emitted', committed: 0, skipped: 0, ms: 0 }
  const run = await pacedRun(request.rate, request.rate * request.seconds, request.concurrency, async (i) => {
    const input = {
      event: 'attribute_updated',
      fileId,
      fileOwnerId: owner.id,
      data: { user: { email: 'bench@example.com' }, nodeIdToAttributes: { n: { sequence: i } } },
    } as const
    await app.ctx.db.kysely
      .transaction()
      .execute((tx) => emitEvent(app.ctx, tx, { ...input, runTimestamp: Date.now() }))
    report.committed++
  })
  report.skipped = run.skipped
  report.ms = run.ms
  return report
}

// The module's use cases: exporting is export.ts (a read); importing, here, is the write.
//
// POST /file/:id/bcf: a BCF 2.1 or 3.0 file into the file's annotations, their discussions and saved
// views (docs/api.md, "BCF"; plan.ts says what each topic becomes). Read and planned first, then
// written in one transaction with every record's event, so an import is whole or nothing. Records
// are the caller's, as if they had made them; each keeps the dates the BCF gave, and the GUID and
// author it came with are kept beside it (bcf_origins), exported again in their place.
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Insertable } from 'kysely'
import type { AppContext } from '../../platform/context.ts'
import type { Tx } from '../../platform/db/index.ts'
import type { InCommit } from '../../platform/idempotency.ts'
import { createAnnotationIn } from '../annotations/index.ts'
import { createConfigurationIn, putThumbnail } from '../configurations/index.ts'
import { createReplyIn } from '../discussions/index.ts'
import type { ItemCaller } from '../file-items/index.ts'
import { lockAccountQuota, requireFileAccess } from '../files/index.ts'
import { resolveComponents } from './components.ts'
import { knownRecords } from './known.ts'
import type { BcfComment } from './model.ts'
import { planTopic, type TopicPlan, type ViewPlan } from './plan.ts'
import { readBcfInWorker } from './reading.ts'
import { insertOrigins } from './repository.ts'
import { MAX_SNAPSHOTS, type Thumbnail, thumbnailOf } from './snapshots.ts'
import type { BcfOriginsTable } from './tables.ts'
import { annotationTargets, viewFields } from './view-state.ts'

export interface ImportReport {
  version: '2.1' | '3.0'
  topics: number
  annotations: string[]
  configurations: string[]
  comments: number
  unchanged: number
  unknownComponents: string[]
  notes: string[]
}

/** The bounds of the records an import writes (the annotations API's, docs/api.md). */
const MAX_TITLE = 1000
const MAX_CONTENT = 100_000
const MAX_TAGS = 1000
const MAX_TAG = 256
const MAX_REPLY = 4000

interface Run {
  ctx: AppContext
  tx: Tx
  caller: ItemCaller
  fileId: string
  ownerId: string
  thumbnails: Map<string, Thumbnail>
  origins: Insertable<BcfOriginsTable>[]
  report: ImportReport
}

function cut(text: string, max: number, what: string, report: ImportReport): string {
  if (text.length <= max) return text
  report.notes.push(`${what} was cut to ${max} characters`)
  return text.slice(0, max)
}

/** The author a BCF names, as kept beside the record (bounded like an e-mail). */
const authorOf = (name: string) => (name ? name.slice(0, 256) : null)

async function addComments(run: Run, annotationId: string, comments: BcfComment[]) {
  for (const c of comments) {
    const text = cut(c.text, MAX_REPLY, `comment ${c.guid}`, run.report)
    const dates = { date: c.date, edited: c.modifiedDate ?? null }
    const reply = await createReplyIn(run.ctx, run.tx, run.caller, annotationId, text, dates)
    run.origins.push({
      file_id: run.fileId,
      guid: c.guid,
      kind: 'comment',
      reply_id: reply._id,
      author: authorOf(c.author),
    })
    run.report.comments += 1
  }
}

async function addView(run: Run, plan: ViewPlan, date: number, topicGuid?: string, author?: string) {
  const input = { name: cut(plan.name, MAX_TITLE, 'a view name', run.report), ...viewFields(plan.parts) }
  const view = await createConfigurationIn(run.ctx, run.tx, run.caller, run.fileId, input, date)
  const thumbnail = run.thumbnails.get(plan.viewpointGuid)
  if (thumbnail) {
    await putThumbnail(
      run.ctx,
      run.tx,
      { id: view._id, ownerId: run.ownerId, accountId: run.caller.accountId },
      thumbnail,
    )
  }
  const row = { file_id: run.fileId, configuration_id: view._id, author: authorOf(author ?? '') }
  if (topicGuid) run.origins.push({ ...row, guid: topicGuid, kind: 'topic' })
  run.origins.push({ ...row, guid: plan.viewpointGuid, kind: 'viewpoint' })
  run.report.configurations.push(view._id)
}

async function addAnnotation(run: Run, plan: Extract<TopicPlan, { kind: 'annotation' }>) {
  const { topic, pose } = plan
  const input = {
    name: cut(topic.title, MAX_TITLE, `the title of topic ${topic.guid}`, run.report),
    content: cut(topic.description ?? '', MAX_CONTENT, `the description of topic ${topic.guid}`, run.report),
    tags: topic.labels
      .slice(0, MAX_TAGS)
      .map((label) => cut(label, MAX_TAG, `a label of topic ${topic.guid}`, run.report)),
    ...(pose ? { cameraX: pose.position[0], cameraY: pose.position[1], cameraZ: pose.position[2] } : {}),
    targets: pose ? annotationTargets(pose, plan.node) : [],
  }
  const dates = {
    date: topic.creationDate,
    lastUpdate: Math.max(topic.modifiedDate ?? 0, topic.creationDate),
  }
  const annotation = await createAnnotationIn(run.ctx, run.tx, run.caller, run.fileId, input, dates)
  const row = { file_id: run.fileId, annotation_id: annotation._id, author: authorOf(topic.creationAuthor) }
  run.origins.push({ ...row, guid: topic.guid, kind: 'topic' })
  if (plan.viewpointGuid) run.origins.push({ ...row, guid: plan.viewpointGuid, kind: 'viewpoint' })
  run.report.annotations.push(annotation._id)
  await addComments(run, annotation._id, topic.comments)
  for (const view of plan.views) await addView(run, view, topic.creationDate)
}

async function apply(run: Run, plan: TopicPlan) {
  switch (plan.kind) {
    case 'unchanged':
      run.report.unchanged += 1
      return
    case 'comments':
      return addComments(run, plan.annotationId, plan.comments)
    case 'views':
      for (const [i, view] of plan.views.entries()) {
        await addView(
          run,
          view,
          plan.topic.creationDate,
          i === 0 ? plan.topic.guid : undefined,
          plan.topic.creationAuthor,
        )
      }
      return
    case 'annotation':
      return addAnnotation(run, plan)
  }
}

async function thumbnailsOf(plans: TopicPlan[], notes: string[]): Promise<Map<string, Thumbnail>> {
  const out = new Map<string, Thumbnail>()
  const views = plans.flatMap((p) => ('views' in p ? p.views : [])).filter((v) => v.snapshot)
  for (const view of views.slice(0, MAX_SNAPSHOTS)) {
    const thumbnail = view.snapshot ? await thumbnailOf(view.snapshot) : null
    if (thumbnail) out.set(view.viewpointGuid, thumbnail)
    else
      notes.push(`the snapshot of viewpoint ${view.viewpointGuid} is not a readable image and was left out`)
  }
  if (views.length > MAX_SNAPSHOTS) notes.push(`snapshots past the first ${MAX_SNAPSHOTS} were left out`)
  return out
}

export async function importBcf(
  ctx: AppContext,
  caller: ItemCaller,
  fileId: string,
  body: Uint8Array,
  inCommit?: InCommit<ImportReport>,
): Promise<ImportReport> {
  const db = ctx.db.kysely
  const { file } = await requireFileAccess(db, caller.accountId, fileId, 'write')
  const { bcf, notes } = await readBcfInWorker(body)
  const components = await resolveComponents(db, fileId, bcf)
  const known = await knownRecords(ctx, caller, fileId)
  const plans = bcf.topics.map((topic) => planTopic(topic, known, components))
  const thumbnails = await thumbnailsOf(plans, notes)
  const report: ImportReport = {
    version: bcf.version,
    topics: bcf.topics.length,
    annotations: [],
    configurations: [],
    comments: 0,
    unchanged: 0,
    unknownComponents: components.unknown,
    notes,
  }
  return db.transaction().execute(async (tx) => {
    // The owner's quota lock comes first in every transaction that stores a thumbnail (files' locks.ts).
    if (thumbnails.size > 0) await lockAccountQuota(ctx, tx, file.owner_id)
    const run: Run = { ctx, tx, caller, fileId, ownerId: file.owner_id, thumbnails, origins: [], report }
    for (const plan of plans) {
      await apply(run, plan)
      // SQLite's statements run synchronously: without a turn between topics, an import of thousands
      // would hold the event loop (not only the database) until it commits.
      await nextTurn()
    }
    await insertOrigins(tx, run.origins)
    await inCommit?.(tx, report)
    return report
  })
}

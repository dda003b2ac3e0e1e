// GET /file/:id/bcf: the file's annotations and saved views as BCF 3.0 topics, as the caller sees
// them (docs/api.md, "BCF"): what their access lists hide stays out, and what an annotation's
// aspects hide is blank, as in the listings. An annotation is a topic of type Issue with its
// discussion as comments and, when it was placed on the model, one viewpoint: its camera looking at
// what it looked at, its node selected. A saved view is a topic of type View with one viewpoint:
// camera, selection, hidden parts, section planes and box, and its thumbnail as the snapshot.
import sharp from 'sharp'
import type {
  AnnotationRecordShape,
  AnnotationReplyShape,
  ConfigurationRecordShape,
} from '../../contract/index.ts'
import type { AppContext } from '../../platform/context.ts'
import type { Executor } from '../../platform/db/index.ts'
import { listThumbnails, readThumbnail } from '../configurations/index.ts'
import type { ItemCaller } from '../file-items/index.ts'
import { requireFileAccess } from '../files/index.ts'
import { globalIdsOfNodes, modelOriginShift, sceneParents } from '../scene/index.ts'
import { TESSERA_SYSTEM } from './components.ts'
import { boxToBcf, cameraToBcf, DEFAULT_ASPECT, NO_SHIFT, type Pose, planeToBcf } from './geometry.ts'
import { derivedGuid } from './guids.ts'
import { BCF_MAX_COMPONENTS } from './limits.ts'
import {
  type BcfComment,
  type BcfComponent,
  type BcfSnapshot,
  type BcfTopic,
  type BcfViewpoint,
  ISSUE_TOPIC_TYPE,
  type Vec3,
  VIEW_TOPIC_TYPE,
} from './model.ts'
import { type Origins, readOrigins } from './origins.ts'
import { visibleRecords } from './records.ts'
import { annotationView, viewParts } from './view-state.ts'
import { writeBcf } from './write.ts'

const OPEN = 'Open'

interface Sources {
  origins: Origins
  globalIds: Map<string, string>
  /** A node and every node under it: BCF hides components one by one, Tessera hides subtrees. */
  subtree(node: string): string[]
  /** How far the conversion moved the model (geometry.ts). */
  shift: Vec3
}

async function subtrees(db: Executor, fileId: string, views: ConfigurationRecordShape[]) {
  if (!views.some((view) => viewParts(view).hidden.length > 0)) return (node: string) => [node]
  const children = new Map<string, string[]>()
  for (const [node, parent] of await sceneParents(db, fileId)) {
    if (parent === null) continue
    const siblings = children.get(parent)
    if (siblings) siblings.push(node)
    else children.set(parent, [node])
  }
  return (node: string) => {
    const out: string[] = []
    for (const stack = [node]; stack.length > 0; ) {
      const next = stack.pop() as string
      out.push(next)
      stack.push(...(children.get(next) ?? []))
    }
    return out
  }
}

function component(node: string, sources: Sources): BcfComponent {
  const ifcGuid = sources.globalIds.get(node)
  return ifcGuid ? { ifcGuid } : { originatingSystem: TESSERA_SYSTEM, authoringToolId: node }
}

function comments(replies: AnnotationReplyShape[], sources: Sources): BcfComment[] {
  return replies.map((r) => ({
    guid: sources.origins.guidOf('comment', r._id) ?? derivedGuid('comment', r._id),
    date: r.date,
    author: sources.origins.authorOf('comment', r._id) ?? r.author,
    text: r.text,
    ...(r.edited === null ? {} : { modifiedDate: r.edited, modifiedAuthor: r.author }),
  }))
}

function annotationTopic(
  a: AnnotationRecordShape,
  replies: AnnotationReplyShape[],
  sources: Sources,
): BcfTopic {
  const { origins } = sources
  const view = annotationView(a)
  const viewpoints: BcfViewpoint[] = view
    ? [
        {
          guid: origins.guidOf('viewpoint', a._id) ?? derivedGuid('viewpoint', a._id),
          camera: cameraToBcf(view.pose, DEFAULT_ASPECT, sources.shift),
          selection: view.node ? [component(view.node, sources)] : [],
          defaultVisibility: true,
          exceptions: [],
          planes: [],
        },
      ]
    : []
  return {
    guid: origins.guidOf('topic', a._id) ?? derivedGuid('topic', a._id),
    type: ISSUE_TOPIC_TYPE,
    status: OPEN,
    title: a.name.trim() || 'Untitled annotation',
    ...(a.content ? { description: a.content } : {}),
    labels: a.tags,
    creationDate: a.date,
    creationAuthor: origins.authorOf('topic', a._id) ?? a.author,
    ...(a.lastUpdate > a.date ? { modifiedDate: a.lastUpdate } : {}),
    comments: comments(replies, sources),
    viewpoints,
  }
}

interface Snapshot {
  image: BcfSnapshot
  aspect: number
}

function viewTopic(c: ConfigurationRecordShape, snapshot: Snapshot | undefined, sources: Sources): BcfTopic {
  const { origins } = sources
  const parts = viewParts(c)
  const camera = parts.pose
    ? cameraToBcf(parts.pose as Pose, snapshot?.aspect ?? DEFAULT_ASPECT, sources.shift)
    : undefined
  const viewpoint: BcfViewpoint = {
    guid: origins.guidOf('viewpoint', c._id) ?? derivedGuid('viewpoint', c._id),
    ...(camera ? { camera } : {}),
    selection: parts.selected.map((node) => component(node, sources)),
    defaultVisibility: true,
    // At most what an import reads of one viewpoint, so an export always comes back in.
    exceptions: [...new Set(parts.hidden.flatMap(sources.subtree))]
      .slice(0, BCF_MAX_COMPONENTS - parts.selected.length)
      .map((node) => component(node, sources)),
    planes: [
      ...parts.planes.map((plane) => planeToBcf(plane, sources.shift)),
      ...(parts.box ? boxToBcf(parts.box, sources.shift) : []),
    ],
    ...(snapshot ? { snapshot: snapshot.image } : {}),
  }
  return {
    guid: origins.guidOf('topic', c._id) ?? derivedGuid('topic', c._id),
    type: VIEW_TOPIC_TYPE,
    status: OPEN,
    title: c.name.trim() || 'Untitled view',
    labels: [],
    creationDate: c.date,
    creationAuthor: origins.authorOf('topic', c._id) ?? c.author,
    ...(c.lastModificationDate === undefined ? {} : { modifiedDate: c.lastModificationDate }),
    ...(c.lastModificationAuthor ? { modifiedAuthor: c.lastModificationAuthor } : {}),
    comments: [],
    viewpoints: [viewpoint],
  }
}

/** The saved views' thumbnails the caller may read, as PNG snapshots (a WebP is turned into PNG). */
async function snapshots(
  ctx: AppContext,
  caller: ItemCaller,
  fileId: string,
): Promise<Map<string, Snapshot>> {
  const out = new Map<string, Snapshot>()
  for (const entry of await listThumbnails(ctx, caller, fileId)) {
    const stored = await readThumbnail(ctx, caller, entry.configuration)
    const bytes =
      stored.contentType === 'image/png' ? stored.bytes : await sharp(stored.bytes).png().toBuffer()
    out.set(entry.configuration, { image: { bytes, type: 'png' }, aspect: stored.width / stored.height })
  }
  return out
}

function nodesNamed(notes: AnnotationRecordShape[], views: ConfigurationRecordShape[]): string[] {
  const nodes = notes.flatMap((a) => annotationView(a)?.node ?? [])
  for (const view of views) {
    const parts = viewParts(view)
    nodes.push(...parts.selected, ...parts.hidden)
  }
  return nodes
}

/** The .bcfzip of the file as `caller` sees it, and the file's name. */
export async function exportBcf(ctx: AppContext, caller: ItemCaller, fileId: string) {
  const db = ctx.db.kysely
  const { file } = await requireFileAccess(db, caller.accountId, fileId, 'read')
  const { notes, views, replies } = await visibleRecords(ctx, caller, fileId)
  const subtree = await subtrees(db, fileId, views)
  const named = nodesNamed(notes, views).flatMap(subtree)
  const sources = {
    origins: await readOrigins(db, fileId),
    globalIds: await globalIdsOfNodes(db, fileId, named),
    subtree,
    shift: (await modelOriginShift(db, fileId)) ?? NO_SHIFT,
  }
  const images = await snapshots(ctx, caller, fileId)
  const topics = [
    ...notes.map((a) => annotationTopic(a, replies.get(a._id) ?? [], sources)),
    ...views.map((c) => viewTopic(c, images.get(c._id), sources)),
  ]
  const project = { id: derivedGuid('project', fileId), name: file.name }
  return { bytes: writeBcf({ version: '3.0', project, topics }), name: file.name }
}

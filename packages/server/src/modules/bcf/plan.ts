// What an import does with each topic, worked out before its transaction (pure, from what was read
// and what the file holds):
// - a topic already in the file (its GUID is one the file's records came with or were exported
//   under): its new comments are added to its annotation; a saved view's topic is left as it is;
// - a topic of type View without comments (what Tessera exports a saved view as): a saved view per
//   viewpoint;
// - any other topic: an annotation with its comments, its camera from the first viewpoint with one,
//   and a saved view for each viewpoint that shows more than a camera can (hidden components, an
//   isolation, section planes, a snapshot, an orthographic camera, several selected components) and
//   for each further viewpoint, so nothing the topic shows is lost.

import type { Components } from './components.ts'
import { boxFromPlanes, cameraFromBcf, type Pose, planeFromBcf } from './geometry.ts'
import type { BcfComment, BcfSnapshot, BcfTopic, BcfViewpoint } from './model.ts'
import { VIEW_TOPIC_TYPE } from './model.ts'
import type { ViewParts } from './view-state.ts'

export interface ViewPlan {
  viewpointGuid: string
  name: string
  parts: ViewParts
  snapshot?: BcfSnapshot
}

export type TopicPlan =
  | { kind: 'comments'; topic: BcfTopic; annotationId: string; comments: BcfComment[] }
  | { kind: 'unchanged'; topic: BcfTopic }
  | {
      kind: 'annotation'
      topic: BcfTopic
      pose?: Pose
      node: string | null
      viewpointGuid?: string
      views: ViewPlan[]
    }
  | { kind: 'views'; topic: BcfTopic; views: ViewPlan[] }

/** What the file holds already: records by the GUID they carry, and the comment GUIDs it has. */
export interface Known {
  topic(guid: string): { annotationId?: string; configurationId?: string } | undefined
  comments: Set<string>
}

function viewPartsOf(v: BcfViewpoint, components: Components): ViewParts {
  const planes = v.planes.flatMap((p) => planeFromBcf(p, components.shift) ?? [])
  // Tessera writes a section box as the last six planes; another tool's six box planes read the same.
  const box = planes.length >= 6 ? boxFromPlanes(planes.slice(-6)) : null
  const kept = box ? planes.slice(0, -6) : planes
  const pose = v.camera ? cameraFromBcf(v.camera, components.shift) : undefined
  return {
    ...(pose ? { pose } : {}),
    selected: [...new Set(v.selection.flatMap((c) => components.nodeOf(c) ?? []))],
    hidden: components.hiddenIn(v),
    planes: kept.slice(0, 6),
    ...(box ? { box } : {}),
  }
}

/** Whether a viewpoint shows more than an annotation's camera and node keep. */
function showsMore(v: BcfViewpoint): boolean {
  return (
    !v.defaultVisibility ||
    v.exceptions.length > 0 ||
    v.planes.length > 0 ||
    v.snapshot !== undefined ||
    v.camera?.kind === 'orthographic' ||
    v.selection.length > 1
  )
}

function viewPlan(topic: BcfTopic, v: BcfViewpoint, index: number, components: Components): ViewPlan {
  const name = topic.viewpoints.length > 1 ? `${topic.title} (viewpoint ${index + 1})` : topic.title
  return {
    viewpointGuid: v.guid,
    name,
    parts: viewPartsOf(v, components),
    ...(v.snapshot ? { snapshot: v.snapshot } : {}),
  }
}

function annotationPlan(topic: BcfTopic, components: Components): TopicPlan {
  const first = topic.viewpoints.find((v) => v.camera !== undefined)
  const own = first && !showsMore(first) ? first : undefined
  const views = topic.viewpoints
    .map((v, i) => ({ v, i }))
    .filter(({ v }) => v !== own)
    .map(({ v, i }) => viewPlan(topic, v, i, components))
  const node = first?.selection.map((c) => components.nodeOf(c)).find((n) => n !== undefined) ?? null
  return {
    kind: 'annotation',
    topic,
    ...(first?.camera ? { pose: cameraFromBcf(first.camera, components.shift) } : {}),
    node,
    ...(own ? { viewpointGuid: own.guid } : {}),
    views,
  }
}

export function planTopic(topic: BcfTopic, known: Known, components: Components): TopicPlan {
  const existing = known.topic(topic.guid)
  if (existing?.annotationId) {
    const comments = topic.comments.filter((c) => !known.comments.has(c.guid))
    return comments.length
      ? { kind: 'comments', topic, annotationId: existing.annotationId, comments }
      : { kind: 'unchanged', topic }
  }
  if (existing) return { kind: 'unchanged', topic }
  const isView = topic.type.toLowerCase() === VIEW_TOPIC_TYPE.toLowerCase() && topic.comments.length === 0
  if (isView && topic.viewpoints.length > 0) {
    return { kind: 'views', topic, views: topic.viewpoints.map((v, i) => viewPlan(topic, v, i, components)) }
  }
  return annotationPlan(topic, components)
}

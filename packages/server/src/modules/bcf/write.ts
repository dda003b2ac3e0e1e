// A BCF 3.0 package from the neutral model (model.ts): bcf.version, extensions.xml (the topic types,
// statuses, labels and users the topics use, as 3.0 asks), project.bcfp, and one folder per topic
// named by its GUID with markup.bcf, a .bcfv per viewpoint and its snapshot. Element order follows
// the schemas' sequences (markup.xsd, visinfo.xsd); test/bcf checks every file against them.
import type {
  BcfCamera,
  BcfComment,
  BcfComponent,
  BcfPackage,
  BcfTopic,
  BcfViewpoint,
  Vec3,
} from './model.ts'
import { buildXml, type XmlElement, xmlText } from './xml.ts'
import { writeZip } from './zip.ts'

const date = (ms: number) => new Date(ms).toISOString()
const xyz = ([x, y, z]: Vec3) => ({ X: x, Y: y, Z: z })
const clean = (value: string | undefined) => (value === undefined ? undefined : xmlText(value))

function component(c: BcfComponent): XmlElement {
  return {
    ...(c.ifcGuid === undefined ? {} : { '@_IfcGuid': c.ifcGuid }),
    OriginatingSystem: clean(c.originatingSystem),
    AuthoringToolId: clean(c.authoringToolId),
  }
}

function camera(c: BcfCamera): XmlElement {
  const pose = {
    CameraViewPoint: xyz(c.position),
    CameraDirection: xyz(c.direction),
    CameraUpVector: xyz(c.up),
  }
  return c.kind === 'perspective'
    ? { PerspectiveCamera: { ...pose, FieldOfView: c.fieldOfView, AspectRatio: c.aspectRatio } }
    : { OrthogonalCamera: { ...pose, ViewToWorldScale: c.viewToWorldScale, AspectRatio: c.aspectRatio } }
}

function visualizationInfo(v: BcfViewpoint): XmlElement {
  const components = (list: BcfComponent[]) => (list.length ? { Component: list.map(component) } : undefined)
  return {
    VisualizationInfo: {
      '@_Guid': v.guid,
      Components: {
        Selection: components(v.selection),
        Visibility: {
          '@_DefaultVisibility': String(v.defaultVisibility),
          Exceptions: components(v.exceptions),
        },
      },
      ...(v.camera ? camera(v.camera) : {}),
      ClippingPlanes: v.planes.length
        ? { ClippingPlane: v.planes.map((p) => ({ Location: xyz(p.location), Direction: xyz(p.direction) })) }
        : undefined,
    },
  }
}

function comment(c: BcfComment): XmlElement {
  return {
    '@_Guid': c.guid,
    Date: date(c.date),
    Author: clean(c.author),
    Comment: clean(c.text),
    Viewpoint: c.viewpoint === undefined ? undefined : { '@_Guid': c.viewpoint },
    ModifiedDate: c.modifiedDate === undefined ? undefined : date(c.modifiedDate),
    ModifiedAuthor: clean(c.modifiedAuthor),
  }
}

const snapshotName = (v: BcfViewpoint) => (v.snapshot ? `${v.guid}.${v.snapshot.type}` : undefined)

function markup(t: BcfTopic): XmlElement {
  const topic = {
    '@_Guid': t.guid,
    '@_TopicType': clean(t.type),
    '@_TopicStatus': clean(t.status),
    Title: clean(t.title),
    Labels: t.labels.length ? { Label: t.labels.map(xmlText) } : undefined,
    CreationDate: date(t.creationDate),
    CreationAuthor: clean(t.creationAuthor),
    ModifiedDate: t.modifiedDate === undefined ? undefined : date(t.modifiedDate),
    ModifiedAuthor: clean(t.modifiedAuthor),
    Description: t.description ? clean(t.description) : undefined,
    Comments: t.comments.length ? { Comment: t.comments.map(comment) } : undefined,
    Viewpoints: t.viewpoints.length
      ? {
          ViewPoint: t.viewpoints.map((v) => ({
            '@_Guid': v.guid,
            Viewpoint: `${v.guid}.bcfv`,
            Snapshot: snapshotName(v),
          })),
        }
      : undefined,
  }
  return { Markup: { Topic: topic } }
}

/** The values of one kind the topics use, sorted and once each (extensions.xml's lists). */
function used(topics: readonly BcfTopic[], values: (topic: BcfTopic) => (string | undefined)[]) {
  const set = new Set(topics.flatMap(values).filter((v): v is string => v !== undefined && v !== ''))
  return [...set].sort().map(xmlText)
}

function extensions(topics: readonly BcfTopic[]): XmlElement {
  const list = (outer: string, inner: string, values: string[]) =>
    values.length ? { [outer]: { [inner]: values } } : {}
  return {
    Extensions: {
      ...list(
        'TopicTypes',
        'TopicType',
        used(topics, (t) => [t.type]),
      ),
      ...list(
        'TopicStatuses',
        'TopicStatus',
        used(topics, (t) => [t.status]),
      ),
      ...list(
        'TopicLabels',
        'TopicLabel',
        used(topics, (t) => t.labels),
      ),
      ...list(
        'Users',
        'User',
        used(topics, (t) => [
          t.creationAuthor,
          t.modifiedAuthor,
          ...t.comments.flatMap((c) => [c.author, c.modifiedAuthor]),
        ]),
      ),
    },
  }
}

/** The .bcfzip of `pkg`, as BCF 3.0. */
export function writeBcf(pkg: BcfPackage): Uint8Array {
  const files = new Map<string, Uint8Array>()
  files.set('bcf.version', buildXml({ Version: { '@_VersionId': '3.0' } }))
  files.set('extensions.xml', buildXml(extensions(pkg.topics)))
  if (pkg.project) {
    const project = { '@_ProjectId': pkg.project.id, Name: xmlText(pkg.project.name) }
    files.set('project.bcfp', buildXml({ ProjectInfo: { Project: project } }))
  }
  for (const topic of pkg.topics) {
    files.set(`${topic.guid}/markup.bcf`, buildXml(markup(topic)))
    for (const viewpoint of topic.viewpoints) {
      files.set(`${topic.guid}/${viewpoint.guid}.bcfv`, buildXml(visualizationInfo(viewpoint)))
      const snapshot = snapshotName(viewpoint)
      if (snapshot && viewpoint.snapshot) files.set(`${topic.guid}/${snapshot}`, viewpoint.snapshot.bytes)
    }
  }
  return writeZip(files)
}

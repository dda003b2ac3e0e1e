// BCF as this module reads and writes it: one neutral shape for BCF 2.1 and 3.0 (the versions differ
// in where elements sit, not in what they say), between the XML (read-*.ts, write-*.ts) and
// Tessera's records (export.ts, import.ts). Coordinates here are BCF's: IFC's world, Z up, metres.

export type Vec3 = [number, number, number]

/** A component as BCF names it: by IFC GlobalId, or by the id the authoring system gave it. */
export interface BcfComponent {
  ifcGuid?: string
  originatingSystem?: string
  authoringToolId?: string
}

export interface BcfCamera {
  kind: 'perspective' | 'orthographic'
  position: Vec3
  direction: Vec3
  up: Vec3
  /** Perspective: the vertical field of view, degrees. */
  fieldOfView: number
  /** Orthographic: the view's height in metres. */
  viewToWorldScale: number
  aspectRatio: number
}

/** What lies on the side `direction` points to is cut away. */
export interface BcfPlane {
  location: Vec3
  direction: Vec3
}

export interface BcfSnapshot {
  bytes: Uint8Array
  type: 'png' | 'jpg'
}

export interface BcfViewpoint {
  guid: string
  camera?: BcfCamera
  selection: BcfComponent[]
  /** false: every component is hidden but the exceptions (an isolated view). */
  defaultVisibility: boolean
  exceptions: BcfComponent[]
  planes: BcfPlane[]
  snapshot?: BcfSnapshot
}

export interface BcfComment {
  guid: string
  date: number
  author: string
  text: string
  viewpoint?: string
  modifiedDate?: number
  modifiedAuthor?: string
}

export interface BcfTopic {
  guid: string
  type: string
  status: string
  title: string
  description?: string
  labels: string[]
  creationDate: number
  creationAuthor: string
  modifiedDate?: number
  modifiedAuthor?: string
  comments: BcfComment[]
  viewpoints: BcfViewpoint[]
}

interface BcfProject {
  id: string
  name: string
}

/** What a .bcfzip holds, once read. */
export interface BcfPackage {
  version: '2.1' | '3.0'
  project?: BcfProject
  topics: BcfTopic[]
}

/** The topic type of a saved view exported as a topic; every other type imports as an annotation. */
export const VIEW_TOPIC_TYPE = 'View'
/** The topic type of an annotation. */
export const ISSUE_TOPIC_TYPE = 'Issue'

// Records as the API answers them (openapi.json, components.schemas); only the fields the console
// reads are typed, the rest passes through untouched.

export type FileState = 'queued' | 'converting' | 'ready' | 'error'

export interface FileRecord {
  _id: string
  parent: string
  name: string
  owner: string
  roles: { email: string; role: 'viewer' | 'editor' }[]
  size: number
  created: string
  updated: string
  revisionDate: string
  state: FileState
  error?: string | null
  progress?: number
  type?: string
  __v: number
  /** Listings of files shared with me: my role on it. */
  role?: 'viewer' | 'editor'
}

/** One revision of a file (GET /file/:id/revisions): the current one first, then earlier ones. */
export interface FileRevision {
  __v: number
  revisionDate: string
  size: number
  sha256: string
  name: string
  /** E-mail of the uploader. */
  uploadedBy: string
  current: boolean
}

export interface Folder {
  name: string
  path: string
  fileCount?: number
}

export interface Listing {
  files: FileRecord[]
  folders: Folder[]
  nextCursor?: string | null
}

export interface SceneNode {
  id: string
  name: string
  children: SceneNode[]
}

export type Attributes = Record<string, unknown>

export interface Annotation {
  _id: string
  author: string
  file: string
  name: string
  content: string
  color: string
  cameraX: number
  cameraY: number
  cameraZ: number
  date: number
  lastUpdate: number
  targets: unknown[]
  __v: number
}

export interface Configuration {
  _id: string
  file: string
  name: string
  author: string
  cameraPosition: number[]
  selectedNodes: string[]
  date: number
  __v: number
  [key: string]: unknown
}

export const WEBHOOK_EVENTS = [
  'file_uploaded',
  'file_optimized',
  'file_optimization_failed',
  'attribute_updated',
  'annotation_created',
  'annotation_updated',
  'annotation_removed',
  'configuration_created',
  'configuration_updated',
  'configuration_removed',
] as const
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number]

export interface Webhook {
  _id: string
  event: WebhookEvent
  url: string
  owner: string
  created: string
  disabled: boolean
  __v: number
}

export type DeliveryStatus = 'pending' | 'delivering' | 'succeeded' | 'failed' | 'paused'

export interface Delivery {
  _id: string
  uuid: string
  webhook: string
  event: WebhookEvent
  file: string
  status: DeliveryStatus
  test: boolean
  attemptCount: number
  nextAttemptAt: string | null
  lastStatusCode: number | null
  lastErrorCode: string | null
  created: string
  updated: string
  completed: string | null
}

export interface Attempt {
  attempt: number
  startedAt: string
  finishedAt: string
  durationMs: number
  statusCode: number | null
  errorCode: string | null
  errorMessage: string | null
  responseExcerpt: string
}

export interface DeliveryDetail extends Delivery {
  payload: unknown
  attempts: Attempt[]
}

export interface AccountSummary {
  _id: string
  username: string
  email: string
  isAdmin?: boolean
  disabled?: boolean
  created?: string
}

export interface LicenseHolder {
  account?: string
  username?: string
  email?: string
  since?: string
  expiresAt?: string
  [key: string]: unknown
}

export interface LicenseUsage {
  total?: number
  used?: number
  free?: number
  holders?: LicenseHolder[]
  [key: string]: unknown
}

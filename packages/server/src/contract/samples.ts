// Sample `data` for test deliveries (POST /webhook/:id/test): every event kind's shape from the
// spec's tables, with the spec's types, so a receiver can exercise its real parsing code.

import { ANNOTATION_PERMISSION_KEYS } from './annotation.ts'
import { defaultConfigurationSettings } from './configuration.ts'
import type { EventName } from './events.ts'

export interface SampleContext {
  /** The webhook owner's e-mail: author, owner and user of the sample records. */
  email: string
  fileId: string
  /** Seed for the sample records' own IDs. */
  newId: () => string
  now: number
  /** The instance's blob store as file records name it (`file://blobs`, `s3://<bucket>`). */
  bucket: string
}

function fileRecord(s: SampleContext, state: 'queued' | 'converting'): Record<string, unknown> {
  const at = new Date(s.now).toISOString()
  const optimized = state === 'converting'
  return {
    _id: s.fileId,
    parent: '/',
    key: '/sample.glb',
    name: 'sample.glb',
    owner: s.email,
    user: s.email,
    roles: [],
    isLink: false,
    shareToken: '',
    size: 1024,
    created: at,
    updated: at,
    revisionDate: at,
    attributes: {},
    allowLivePublicMeetings: false,
    state,
    error: '',
    sceneTreeNames: optimized ? ['Scene', 'Mesh'] : [],
    sceneTreeRoots: optimized ? ['0'] : [],
    favoritedBy: [],
    type: 'file',
    bucket: s.bucket,
    __v: 0,
  }
}

function annotationRecord(s: SampleContext, id: string): Record<string, unknown> {
  const permissions: Record<string, unknown> = { _id: s.newId() }
  for (const list of ANNOTATION_PERMISSION_KEYS) permissions[list] = []
  return {
    _id: id,
    author: s.email,
    file: s.fileId,
    name: 'Sample annotation',
    content: 'Sent by POST /webhook/:id/test',
    type: 0,
    color: '#ff0000',
    cameraX: 0,
    cameraY: 1.5,
    cameraZ: 5,
    date: s.now,
    lastUpdate: s.now,
    targets: [],
    tags: [],
    readPermissions: [],
    writePermissions: [],
    permissions,
    __v: 0,
  }
}

function configurationRecord(s: SampleContext, id: string): Record<string, unknown> {
  const { renderMode: _renderMode, ...settings } = defaultConfigurationSettings(s.newId)
  return {
    _id: id,
    file: s.fileId,
    name: 'Sample configuration',
    author: s.email,
    lastModificationAuthor: null,
    lockedBy: null,
    lastActivationDate: new Date(s.now).toISOString(),
    date: s.now,
    // The created/updated events carry no renderMode (the spec's quirk).
    ...settings,
    readPermissions: [],
    writePermissions: [],
    __v: 0,
  }
}

export function sampleData(event: EventName, s: SampleContext): unknown {
  switch (event) {
    case 'attribute_updated':
      return { user: { email: s.email }, nodeIdToAttributes: { '0': { color: 'red' } } }
    case 'file_uploaded':
      return fileRecord(s, 'queued')
    case 'file_optimized':
      return fileRecord(s, 'converting')
    case 'file_optimization_failed':
      return { ...fileRecord(s, 'queued'), state: 'error', error: 'sample conversion failure' }
    case 'file_shared':
      return { ...fileRecord(s, 'converting'), roles: [{ email: 'colleague@example.com', role: 'viewer' }] }
    case 'file_unshared':
      return fileRecord(s, 'converting')
    case 'annotation_created':
    case 'annotation_removed':
      return annotationRecord(s, s.newId())
    case 'annotation_updated': {
      const id = s.newId()
      const old = annotationRecord(s, id)
      // The spec shows `permissions` as an array inside annotation_updated; kept for compatibility.
      const next = { ...old, name: 'Sample annotation (renamed)', lastUpdate: s.now, __v: 1 }
      return {
        old: { ...old, permissions: [old.permissions] },
        new: { ...next, permissions: [old.permissions] },
      }
    }
    case 'annotation_discussion_updated': {
      const annotation = s.newId()
      const reply = {
        _id: s.newId(),
        annotation,
        file: s.fileId,
        author: s.email,
        text: 'Sample reply, sent by POST /webhook/:id/test',
        seq: 1,
        date: s.now,
        edited: null,
      }
      return { annotation, change: 'reply_created', reply, discussion: { replies: 1, lastReplyAt: s.now } }
    }
    case 'configuration_created':
      return configurationRecord(s, s.newId())
    case 'configuration_removed':
      return { ...configurationRecord(s, s.newId()), renderMode: 'phong' }
    case 'configuration_updated': {
      const old = configurationRecord(s, s.newId())
      const next = { ...old, name: 'Sample configuration (renamed)', lastModificationDate: s.now, __v: 1 }
      return { old, new: { ...next, lastModificationAuthor: s.email } }
    }
  }
}

// The browser-safe part of a strict TypeScript consumer: only @tessera/client and
// @tessera/client/webhooks, compiled with `types: []` (no Node types) and no skipLibCheck
// (tsconfig.json here; test/packed.test.ts runs the workspace's tsc on it in a fresh project).
import { type FileView, type SearchCondition, Tessera, TesseraError } from '@tessera/client'
import { verifyWebhook, type WebhookEventName } from '@tessera/client/webhooks'

/** Exhaustive over the file states: compiles only while `state` is their union, not `string`. */
export function describeState(file: FileView): string {
  switch (file.state) {
    case 'queued':
    case 'converting':
      return 'busy'
    case 'ready':
      return 'ready'
    case 'error':
      return `failed: ${file.error}`
    default: {
      const unknown: never = file.state
      return unknown
    }
  }
}

/** Exhaustive over the event names, likewise. */
export function subject(event: WebhookEventName): 'file' | 'attribute' | 'annotation' | 'configuration' {
  switch (event) {
    case 'file_uploaded':
    case 'file_optimized':
    case 'file_optimization_failed':
    case 'file_shared':
    case 'file_unshared':
      return 'file'
    case 'attribute_updated':
      return 'attribute'
    case 'annotation_created':
    case 'annotation_updated':
    case 'annotation_removed':
    case 'annotation_discussion_updated':
      return 'annotation'
    case 'configuration_created':
    case 'configuration_updated':
    case 'configuration_removed':
      return 'configuration'
    default: {
      const unknown: never = event
      return unknown
    }
  }
}

/** Exhaustive over the search operators, likewise: `op` is their union. */
function symbolOf(condition: SearchCondition): string {
  switch (condition.op) {
    case 'eq':
      return '='
    case 'ne':
      return '!='
    case 'contains':
      return '~'
    case 'lt':
      return '<'
    case 'lte':
      return '<='
    case 'gt':
      return '>'
    case 'gte':
      return '>='
    case 'exists':
      return 'exists'
    default: {
      const unknown: never = condition
      return unknown
    }
  }
}

export interface Outcome {
  state: string
  listed: string[]
  missing: string
  verified: ReturnType<typeof subject>
  /** A search of the model's properties: the operator, and how many nodes matched. */
  searched: string
}

/** A delivery signed the way Tessera signs one (Standard Webhooks: HMAC-SHA256, base64). */
async function signedDelivery(secret: string, fileId: string): Promise<{ headers: Headers; body: string }> {
  const id = 'msg_typed_consumer'
  const timestamp = String(Math.floor(Date.now() / 1000))
  const body = JSON.stringify({
    event: 'file_optimized',
    file: fileId,
    owner: 'consumer@example.com',
    runTimestamp: Date.now(),
    uuid: crypto.randomUUID(),
    data: {},
  })
  const encoder = new TextEncoder()
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  const mac = new Uint8Array(
    await crypto.subtle.sign('HMAC', key, encoder.encode(`${id}.${timestamp}.${body}`)),
  )
  const signature = `v1,${btoa(String.fromCharCode(...mac))}`
  return {
    headers: new Headers({
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': signature,
    }),
    body,
  }
}

/** Uploads `model` (a Blob), waits until it is ready, lists its folder, verifies a signed delivery. */
export async function uploadBlob(
  tessera: Tessera,
  model: Blob,
): Promise<{ outcome: Outcome; file: FileView }> {
  const uploaded = await tessera.files.upload(model, { name: 'typed.stl', parent: '/typed' })
  const file = await tessera.files.waitUntilReady(uploaded._id, { timeoutMs: 60_000 })
  const listed = (await tessera.files.list('/typed')).map((f) => f.key)
  const missing = await tessera.files.get('aaaaaaaaaaaaaaaaaaaaaaaa').then(
    () => 'found',
    (error: unknown) => (error instanceof TesseraError ? error.code : 'not a TesseraError'),
  )
  const secret = 'typed-consumer-secret'
  const envelope = await verifyWebhook({ ...(await signedDelivery(secret, file._id)), secret })
  const walls: SearchCondition = { group: 'IFC', name: 'class', op: 'eq', value: 'IfcWall' }
  const { total } = await tessera.files.search(file._id, [walls])
  const outcome = {
    state: describeState(file),
    listed,
    missing,
    verified: subject(envelope.event),
    searched: `${symbolOf(walls)} ${total}`,
  }
  return { outcome, file }
}

export { Tessera }

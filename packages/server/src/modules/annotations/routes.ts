import type { FastifyInstance } from 'fastify'
import { AnnotationRecord } from '../../contract/index.ts'
import type { AppContext } from '../../platform/context.ts'
import { ItemRoutes } from '../file-items/index.ts'
import { CreateAnnotationBody, UpdateAnnotationBody } from './schemas.ts'
import { annotations, createAnnotation, updateAnnotation } from './service.ts'

const PERMISSIONS_NOTE =
  'Access lists hold account e-mails or "*" (empty: no restriction). The author and the file owner ' +
  'always have every right; others need readPermissions to see the annotation (else 404), ' +
  'writePermissions to change or delete it, and the matching permissions array per aspect ' +
  '(writeTitle: name, writeDescription: content, writeTargets: targets, delete). Viewers of the file ' +
  'only read (403 on writes).'

export async function annotationRoutes(fastify: FastifyInstance, ctx: AppContext): Promise<void> {
  const routes = new ItemRoutes(fastify, ctx, {
    record: AnnotationRecord,
    tags: ['annotations'],
    one: 'annotation',
    many: 'annotations',
    permissionsNote: PERMISSIONS_NOTE,
    items: annotations,
  })

  routes.post(
    '/annotation/create/',
    {
      operationId: 'createAnnotation',
      summary: 'Create an annotation on a file',
      description:
        'Needs the owner or editor role. Every field not given gets its default (type 0, color "#ffffff", ' +
        'camera 0, empty arrays). Emits annotation_created.',
      body: CreateAnnotationBody,
      idempotent: true,
    },
    (auth, { file, ...input }, inCommit) => createAnnotation(ctx, auth, file, input, inCommit),
  )

  routes.post(
    '/annotation/update/',
    {
      operationId: 'updateAnnotation',
      summary: 'Change fields of an annotation',
      description:
        'Fields not given stay. A stale __v answers 409 CONFLICT. Sending only unchanged values changes ' +
        'nothing (no new revision, no event). Emits annotation_updated {old, new}.',
      body: UpdateAnnotationBody,
    },
    (auth, { _id, ...input }) => updateAnnotation(ctx, auth, _id, input),
  )

  routes.delete('/annotation/delete/', 'deleteAnnotation', 'Delete an annotation')
  routes.list(
    '/annotation/',
    'listAnnotations',
    'The annotations of a file the caller may see',
    'Aspects the caller may not read are blanked ("" or []).',
  )
}

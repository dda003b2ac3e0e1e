import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../platform/context.ts'
import { bodyOptional, idOfDelete } from '../../platform/http.ts'
import { AnnotationRecord } from '../webhooks/index.ts'
import {
  AnnotationAnswer,
  AnnotationIdInput,
  AnnotationList,
  CreateAnnotationBody,
  ListAnnotationsQuery,
  UpdateAnnotationBody,
} from './schemas.ts'
import { createAnnotation, deleteAnnotation, listAnnotations, updateAnnotation } from './service.ts'

const PERMISSIONS_NOTE =
  'Access lists hold account e-mails or "*" (empty: no restriction). The author and the file owner ' +
  'always have every right; others need readPermissions to see the annotation (else 404), ' +
  'writePermissions to change or delete it, and the matching permissions array per aspect ' +
  '(writeTitle: name, writeDescription: content, writeTargets: targets, delete). Viewers of the file ' +
  'only read (403 on writes).'

export async function annotationRoutes(fastify: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.addSchema(AnnotationRecord)
  const tags = ['annotations']

  app.post(
    '/annotation/create/',
    {
      schema: {
        tags,
        summary: 'Create an annotation on a file',
        description: `Needs the owner or editor role. Every field not given gets its default (type 0, color "#ffffff", camera 0, empty arrays). Emits annotation_created. ${PERMISSIONS_NOTE}`,
        body: CreateAnnotationBody,
        response: { 200: AnnotationAnswer },
      },
    },
    async (request) => {
      const { file, ...input } = request.body
      return { success: true as const, annotation: await createAnnotation(ctx, request.auth, file, input) }
    },
  )

  app.post(
    '/annotation/update/',
    {
      schema: {
        tags,
        summary: 'Change fields of an annotation',
        description: `Fields not given stay. A stale __v answers 409 CONFLICT. Sending only unchanged values changes nothing (no new revision, no event). Emits annotation_updated {old, new}. ${PERMISSIONS_NOTE}`,
        body: UpdateAnnotationBody,
        response: { 200: AnnotationAnswer },
      },
    },
    async (request) => {
      const { _id, ...input } = request.body
      return { success: true as const, annotation: await updateAnnotation(ctx, request.auth, _id, input) }
    },
  )

  app.delete(
    '/annotation/delete/',
    {
      preValidation: bodyOptional,
      schema: {
        tags,
        summary: 'Delete an annotation',
        description: `The id as JSON body {"_id"} or as query ?_id= (neither: 400). Answers the removed record. Emits annotation_removed. ${PERMISSIONS_NOTE}`,
        body: AnnotationIdInput,
        querystring: AnnotationIdInput,
        response: { 200: AnnotationAnswer },
      },
    },
    async (request) => ({
      success: true as const,
      annotation: await deleteAnnotation(ctx, request.auth, idOfDelete(request.body, request.query)),
    }),
  )

  app.get(
    '/annotation/',
    {
      schema: {
        tags,
        summary: 'The annotations of a file the caller may see',
        description: `Oldest first. Aspects the caller may not read are blanked ("" or []). ${PERMISSIONS_NOTE}`,
        querystring: ListAnnotationsQuery,
        response: { 200: AnnotationList },
      },
    },
    async (request) => ({
      success: true as const,
      annotations: await listAnnotations(ctx, request.auth, request.query.file),
    }),
  )
}

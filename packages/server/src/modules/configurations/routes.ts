import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../platform/context.ts'
import { bodyOptional, idOfDelete } from '../../platform/http.ts'
import { ConfigurationRecord } from '../webhooks/index.ts'
import {
  ConfigurationAnswer,
  ConfigurationIdInput,
  ConfigurationList,
  ListConfigurationsQuery,
  SaveConfigurationBody,
} from './schemas.ts'
import { deleteConfiguration, listConfigurations, saveConfiguration } from './service.ts'

const PERMISSIONS_NOTE =
  'Needs the owner or editor role to write (viewer: 403; no access to the file: 404). readPermissions ' +
  'and writePermissions hold account e-mails or "*" (empty: no restriction); the author and the file ' +
  'owner always have every right, others need readPermissions to see the configuration (else 404) and ' +
  'writePermissions to change or delete it (403).'

export async function configurationRoutes(fastify: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.addSchema(ConfigurationRecord)
  const tags = ['configurations']

  app.post(
    '/file/configuration/',
    {
      schema: {
        tags,
        summary: 'Create (no _id) or update (with _id) a configuration',
        description:
          'Create: `file` is required; every field not given gets its default; emits configuration_created. ' +
          'Update: fields not given stay; a stale __v answers 409 CONFLICT; sets lastModificationDate and ' +
          'lastModificationAuthor; sending only unchanged values changes nothing (no new revision, no ' +
          `event); emits configuration_updated {old, new}. ${PERMISSIONS_NOTE}`,
        body: SaveConfigurationBody,
        response: { 200: ConfigurationAnswer },
      },
    },
    async (request) => ({
      success: true as const,
      configuration: await saveConfiguration(ctx, request.auth, request.body),
    }),
  )

  app.delete(
    '/file/configuration/',
    {
      preValidation: bodyOptional,
      schema: {
        tags,
        summary: 'Delete a configuration',
        description: `The id as JSON body {"_id"} or as query ?_id= (neither: 400). Answers the removed record. Emits configuration_removed. ${PERMISSIONS_NOTE}`,
        body: ConfigurationIdInput,
        querystring: ConfigurationIdInput,
        response: { 200: ConfigurationAnswer },
      },
    },
    async (request) => ({
      success: true as const,
      configuration: await deleteConfiguration(ctx, request.auth, idOfDelete(request.body, request.query)),
    }),
  )

  app.get(
    '/file/configuration/',
    {
      schema: {
        tags,
        summary: 'The configurations of a file the caller may see',
        description: `Oldest first. ${PERMISSIONS_NOTE}`,
        querystring: ListConfigurationsQuery,
        response: { 200: ConfigurationList },
      },
    },
    async (request) => ({
      success: true as const,
      configurations: await listConfigurations(ctx, request.auth, request.query.file),
    }),
  )
}

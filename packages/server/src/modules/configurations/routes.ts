import type { FastifyInstance } from 'fastify'
import { ConfigurationRecord } from '../../contract/index.ts'
import type { AppContext } from '../../platform/context.ts'
import { ItemRoutes } from '../file-items/index.ts'
import { SaveConfigurationBody } from './schemas.ts'
import { configurations, saveConfiguration } from './service.ts'

const PERMISSIONS_NOTE =
  'Needs the owner or editor role to write (viewer: 403; no access to the file: 404). readPermissions ' +
  'and writePermissions hold account e-mails or "*" (empty: no restriction); the author and the file ' +
  'owner always have every right, others need readPermissions to see the configuration (else 404) and ' +
  'writePermissions to change or delete it (403).'

export async function configurationRoutes(fastify: FastifyInstance, ctx: AppContext): Promise<void> {
  const routes = new ItemRoutes(fastify, ctx, {
    record: ConfigurationRecord,
    tags: ['configurations'],
    one: 'configuration',
    many: 'configurations',
    permissionsNote: PERMISSIONS_NOTE,
    items: configurations,
  })

  routes.post(
    '/file/configuration/',
    {
      operationId: 'saveConfiguration',
      summary: 'Create (no _id) or update (with _id) a configuration',
      description:
        'Create: `file` is required; every field not given gets its default; emits configuration_created. ' +
        'Update: fields not given stay; a stale __v answers 409 CONFLICT; sets lastModificationDate and ' +
        'lastModificationAuthor; sending only unchanged values changes nothing (no new revision, no ' +
        'event); emits configuration_updated {old, new}.',
      body: SaveConfigurationBody,
      idempotent: true,
    },
    (auth, body, inCommit) => saveConfiguration(ctx, auth, body, inCommit),
  )

  // The spec's one URL for all three: POST saves, DELETE removes, GET lists.
  routes.delete('/file/configuration/', 'deleteConfiguration', 'Delete a configuration')
  routes.list('/file/configuration/', 'listConfigurations', 'The configurations of a file the caller may see')
}

import type { FastifyInstance } from 'fastify'
import { ConfigurationRecord } from '../../contract/index.ts'
import type { AppContext } from '../../platform/context.ts'
import { ItemRoutes } from '../file-items/index.ts'
import { lockConfiguration, unlockConfiguration } from './locks.ts'
import { ConfigurationIdBody, SaveConfigurationBody } from './schemas.ts'
import { configurations, saveConfiguration } from './service.ts'
import { thumbnailRoutes } from './thumbnail-routes.ts'

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
        'Update: fields not given stay; a stale __v answers 409 CONFLICT; locked by another account ' +
        '(POST /file/configuration/lock/): 409 CONFIGURATION_LOCKED; `lockedBy` is ignored (the lock ' +
        'calls set it); sets lastModificationDate and ' +
        'lastModificationAuthor; sending only unchanged values changes nothing (no new revision, no ' +
        'event); emits configuration_updated {old, new}.',
      body: SaveConfigurationBody,
      idempotent: true,
    },
    (auth, body, inCommit) => saveConfiguration(ctx, auth, body, inCommit),
  )

  routes.post(
    '/file/configuration/lock/',
    {
      operationId: 'lockConfiguration',
      summary: 'Lock a configuration: nobody else may change or delete it until it is unlocked',
      description:
        'Who may change the configuration may lock it. Sets `lockedBy` to the caller’s e-mail; locking ' +
        'your own lock again changes nothing. Locked by another account: 409 CONFIGURATION_LOCKED, the ' +
        'detail naming the holder; while locked, their updates and deletes are refused so too (the ' +
        'holder’s pass). Emits configuration_updated {old, new}; `__v` moves, lastModification* do not.',
      body: ConfigurationIdBody,
    },
    (auth, body) => lockConfiguration(ctx, auth, body._id),
  )

  routes.post(
    '/file/configuration/unlock/',
    {
      operationId: 'unlockConfiguration',
      summary: 'Release the lock of a configuration',
      description:
        'The holder or the file’s owner (anyone else who may change it: 403). Sets `lockedBy` to null; ' +
        'an unlocked configuration stays as it is. Emits configuration_updated {old, new}.',
      body: ConfigurationIdBody,
    },
    (auth, body) => unlockConfiguration(ctx, auth, body._id),
  )

  // The spec's one URL for all three: POST saves, DELETE removes, GET lists.
  routes.delete(
    '/file/configuration/',
    'deleteConfiguration',
    'Delete a configuration (locked by another account: 409 CONFIGURATION_LOCKED)',
  )
  routes.list('/file/configuration/', 'listConfigurations', 'The configurations of a file the caller may see')
  await thumbnailRoutes(fastify, ctx)
}

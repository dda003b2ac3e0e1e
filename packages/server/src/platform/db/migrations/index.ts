// One migration set for both dialects, one file each (NNNN_name.ts, the name being the migration's
// id). Only portable column types: text, integer, bigint (and binary, chosen per dialect, in 0031).
// Append new migrations (a file and an entry below); never edit one that has shipped.
// test/platform/db-migration-list.test.ts checks that this list and the folder agree.
import type { Kysely, Migration } from 'kysely'
import { migration as accountsSessionsFiles } from './0001_accounts_sessions_files.ts'
import { migration as webhooks } from './0002_webhooks.ts'
import { migration as fileShares } from './0003_file_shares.ts'
import { migration as webhookOps } from './0004_webhook_ops.ts'
import { migration as filesJobs } from './0005_files_jobs.ts'
import { migration as sceneAnnotationsConfigurations } from './0006_scene_annotations_configurations.ts'
import { migration as optimizedAssets } from './0007_optimized_assets.ts'
import { migration as deliveryClaims } from './0008_delivery_claims.ts'
import { migration as outboxWritePath } from './0009_outbox_write_path.ts'
import { migration as deliveriesClustered } from './0010_deliveries_clustered.ts'
import { migration as sceneAttributeTotals } from './0011_scene_attribute_totals.ts'
import { migration as thumbnails } from './0012_thumbnails.ts'
import { migration as filesListingIndex } from './0013_files_listing_index.ts'
import { migration as eventStream } from './0014_event_stream.ts'
import { migration as itemTotals } from './0015_item_totals.ts'
import { migration as authRowNotify } from './0016_auth_row_notify.ts'
import { migration as workers } from './0017_workers.ts'
import { migration as fileRevisions } from './0018_file_revisions.ts'
import { migration as workerRound } from './0019_worker_round.ts'
import { migration as outboxPages } from './0020_outbox_pages.ts'
import { migration as conversionRevisionsFairness } from './0021_conversion_revisions_fairness.ts'
import { migration as eventRetention } from './0022_event_retention.ts'
import { migration as idempotencyKeys } from './0023_idempotency_keys.ts'
import { migration as accountTokenRevocation } from './0024_account_token_revocation.ts'
import { migration as authListeners } from './0025_auth_listeners.ts'
import { migration as revisionNumbers } from './0026_revision_numbers.ts'
import { migration as dropWorkerRound } from './0027_drop_worker_round.ts'
import { migration as annotationDiscussions } from './0028_annotation_discussions.ts'
import { migration as favouritesViewLocks } from './0029_favourites_view_locks.ts'
import { migration as fileLinks } from './0030_file_links.ts'
import { migration as configurationThumbnails } from './0031_configuration_thumbnails.ts'
import { migration as sceneProperties } from './0032_scene_properties.ts'
import { migration as bcfOrigins } from './0033_bcf_origins.ts'
import { migration as listingNotify } from './0034_listing_notify.ts'

// biome-ignore lint/suspicious/noExplicitAny: migrations run before the typed schema exists
export type AnyDb = Kysely<any>

export interface NamedMigration {
  /** The migration's id in the bookkeeping table, and its file's name without `.ts`. */
  name: string
  migration: Migration
}

/** In the order they run. */
export const migrationList: readonly NamedMigration[] = [
  { name: '0001_accounts_sessions_files', migration: accountsSessionsFiles },
  { name: '0002_webhooks', migration: webhooks },
  { name: '0003_file_shares', migration: fileShares },
  { name: '0004_webhook_ops', migration: webhookOps },
  { name: '0005_files_jobs', migration: filesJobs },
  { name: '0006_scene_annotations_configurations', migration: sceneAnnotationsConfigurations },
  { name: '0007_optimized_assets', migration: optimizedAssets },
  { name: '0008_delivery_claims', migration: deliveryClaims },
  { name: '0009_outbox_write_path', migration: outboxWritePath },
  { name: '0010_deliveries_clustered', migration: deliveriesClustered },
  { name: '0011_scene_attribute_totals', migration: sceneAttributeTotals },
  { name: '0012_thumbnails', migration: thumbnails },
  { name: '0013_files_listing_index', migration: filesListingIndex },
  { name: '0014_event_stream', migration: eventStream },
  { name: '0015_item_totals', migration: itemTotals },
  { name: '0016_auth_row_notify', migration: authRowNotify },
  { name: '0017_workers', migration: workers },
  { name: '0018_file_revisions', migration: fileRevisions },
  { name: '0019_worker_round', migration: workerRound },
  { name: '0020_outbox_pages', migration: outboxPages },
  { name: '0021_conversion_revisions_fairness', migration: conversionRevisionsFairness },
  { name: '0022_event_retention', migration: eventRetention },
  { name: '0023_idempotency_keys', migration: idempotencyKeys },
  { name: '0024_account_token_revocation', migration: accountTokenRevocation },
  { name: '0025_auth_listeners', migration: authListeners },
  { name: '0026_revision_numbers', migration: revisionNumbers },
  { name: '0027_drop_worker_round', migration: dropWorkerRound },
  { name: '0028_annotation_discussions', migration: annotationDiscussions },
  { name: '0029_favourites_view_locks', migration: favouritesViewLocks },
  { name: '0030_file_links', migration: fileLinks },
  { name: '0031_configuration_thumbnails', migration: configurationThumbnails },
  { name: '0032_scene_properties', migration: sceneProperties },
  { name: '0033_bcf_origins', migration: bcfOrigins },
  { name: '0034_listing_notify', migration: listingNotify },
]

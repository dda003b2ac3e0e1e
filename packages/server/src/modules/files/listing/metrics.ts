// The listing cache's counters on /metrics (PostgreSQL; they stay 0 on SQLite, which keeps no listings).
// Read at scrape time from the app's store: nothing runs per request beyond the cache's own counts.
import { Counter, Gauge, type Registry } from 'prom-client'
import type { AppContext } from '../../../platform/context.ts'
import type { ListingCacheStats } from './postgres/cache.ts'
import { listingCacheStats } from './store.ts'

type CountedStat = 'hits' | 'misses' | 'invalidations' | 'resets' | 'evictions'

const COUNTERS: ReadonlyArray<[CountedStat, string]> = [
  ['hits', 'Listing pages and file rows answered from memory'],
  ['misses', 'Listing pages and file rows read from the database'],
  ['invalidations', 'Kept pages and rows dropped because a row they hold changed'],
  ['resets', 'Times everything kept was dropped (notification connection lost or back, an account changed)'],
  ['evictions', 'Kept pages and rows dropped for room (entry or byte bound)'],
]

export function registerListingCacheMetrics(registry: Registry, ctx: AppContext): void {
  const stats = (): Readonly<ListingCacheStats> | undefined => listingCacheStats(ctx)
  for (const [stat, help] of COUNTERS) {
    new Counter({
      name: `tessera_listing_cache_${stat}_total`,
      help,
      registers: [registry],
      collect() {
        this.reset()
        this.inc(stats()?.[stat] ?? 0)
      },
    })
  }
  for (const [stat, help] of [
    ['entries', 'Listing pages and file rows kept'],
    ['bytes', 'Estimated bytes of what is kept'],
  ] as const) {
    new Gauge({
      name: `tessera_listing_cache_${stat}`,
      help,
      registers: [registry],
      collect() {
        this.set(stats()?.[stat] ?? 0)
      },
    })
  }
}

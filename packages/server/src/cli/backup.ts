// `tessera-server backup --to DIR` and `tessera-server restore --from DIR` (platform/backup does the work).
import { parseArgs } from 'node:util'
import { BackupError, backup, type Manifest, restore } from '../platform/backup/index.ts'
import type { Config } from '../platform/config.ts'
import { out, UsageError } from './common.ts'

function summary(manifest: Manifest): string {
  const counts = Object.entries(manifest.counts)
    .map(([table, n]) => `${table} ${n}`)
    .join(', ')
  return `${manifest.dialect} at ${manifest.migration}; ${manifest.blobs.length} blobs; ${counts}`
}

async function reportingUsage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof BackupError) throw new UsageError(error.message)
    throw error
  }
}

export async function backupCommand(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { to: { type: 'string' } } })
  if (!values.to) throw new UsageError('backup needs --to DIR (a new or empty folder)')
  const to = values.to
  const manifest = await reportingUsage(() => backup({ config, to, say: out }))
  out(`backup in ${to}: ${summary(manifest)}`)
  for (const gone of manifest.missing) out(`  not backed up: ${gone.key}: ${gone.reason}`)
}

export async function restoreCommand(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { from: { type: 'string' } } })
  if (!values.from) throw new UsageError('restore needs --from DIR (a folder made by tessera backup)')
  const from = values.from
  const manifest = await reportingUsage(() => restore({ config, from, say: out }))
  out(`restored from ${from}: ${summary(manifest)}`)
}

// The GUIDs and authors a file's records came with from BCF (bcf_origins), looked up both ways.
import type { Executor } from '../../platform/db/index.ts'
import { type OriginRow, originsOfFile } from './repository.ts'

type Kind = OriginRow['kind']

const recordOf = (row: OriginRow) => row.annotation_id ?? row.configuration_id ?? row.reply_id ?? ''

export interface Origins {
  guidOf(kind: Kind, recordId: string): string | undefined
  authorOf(kind: Kind, recordId: string): string | undefined
  /** The record a GUID names in this file, if any. */
  byGuid(guid: string): OriginRow | undefined
}

export async function readOrigins(db: Executor, fileId: string): Promise<Origins> {
  const rows = await originsOfFile(db, fileId)
  const byRecord = new Map(rows.map((row) => [`${row.kind}\0${recordOf(row)}`, row]))
  const byGuid = new Map(rows.map((row) => [row.guid, row]))
  return {
    guidOf: (kind, id) => byRecord.get(`${kind}\0${id}`)?.guid,
    authorOf: (kind, id) => byRecord.get(`${kind}\0${id}`)?.author ?? undefined,
    byGuid: (guid) => byGuid.get(guid),
  }
}

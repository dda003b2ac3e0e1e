// The settings modules/files/ owns: uploads, kept revisions, shares, favourites and the quota of
// stored bytes.
// Declared here, assembled and parsed once at start-up with every other
// owner's by app/config.ts (platform/settings.ts describes the shape).
import { integer, type Setting, size, sizeOrZero } from '../../platform/settings.ts'

declare module '../../platform/config.ts' {
  interface Config {
    /** Largest upload accepted (bytes); larger ones get 413. */
    uploadMaxBytes: number
    /** Earlier revisions kept per file (their rows and original blobs); 0 keeps none. */
    fileRevisionsKept: number
    /** Bytes of file revisions (current and kept ones) and saved-view thumbnails one account may own; 0 = no quota. */
    accountQuotaBytes: number
    /** Accounts one file may be shared with. */
    fileMaxShares: number
    /** Files one account may star (favourites). */
    accountMaxFavourites: number
  }
}

export const fileSettings = [
  {
    name: 'TESSERA_UPLOAD_MAX_BYTES',
    key: 'uploadMaxBytes',
    default: '2GiB',
    help: 'larger uploads get 413',
    parse: size(1, '1 byte'),
  },
  {
    name: 'TESSERA_FILE_REVISIONS_KEPT',
    key: 'fileRevisionsKept',
    default: '10',
    help: 'earlier revisions kept per file (original bytes, downloadable); 0 = keep none',
    parse: integer(0, 1000),
  },
  {
    name: 'TESSERA_ACCOUNT_QUOTA_BYTES',
    key: 'accountQuotaBytes',
    default: '0',
    help: 'bytes of uploaded files (with kept revisions) and their saved-view thumbnails one account may own; 0 = none (more: 413 QUOTA_EXCEEDED)',
    parse: sizeOrZero,
  },
  {
    name: 'TESSERA_FILE_MAX_SHARES',
    key: 'fileMaxShares',
    default: '1000',
    help: 'accounts one file may be shared with (more: 409 SHARE_LIMIT_REACHED)',
    parse: integer(1, 100_000),
  },
  {
    name: 'TESSERA_ACCOUNT_MAX_FAVOURITES',
    key: 'accountMaxFavourites',
    default: '10000',
    help: 'files one account may star (more: 409 FAVOURITE_LIMIT_REACHED)',
    parse: integer(1, 1_000_000),
  },
] satisfies Setting[]

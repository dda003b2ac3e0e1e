// What every module gets from the kernel: configuration, storage and the token service.
import type { Logger } from 'pino'
import type { BlobStore } from './blobs/index.ts'
import type { Config } from './config.ts'
import type { Db } from './db/index.ts'
import type { InstanceKeys } from './keys.ts'
import type { TokenService } from './tokens.ts'

export interface AppContext {
  config: Config
  db: Db
  /** Original uploads (and later derived assets); from `storageUrl`, closed with the app. */
  blobs: BlobStore
  keys: InstanceKeys
  tokens: TokenService
  log: Logger
}

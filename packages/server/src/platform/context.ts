// What every module gets from the kernel: configuration, storage and the token service.
import type { Logger } from 'pino'
import type { Config } from './config.ts'
import type { Db } from './db/index.ts'
import type { InstanceKeys } from './keys.ts'
import type { TokenService } from './tokens.ts'

export interface AppContext {
  config: Config
  db: Db
  keys: InstanceKeys
  tokens: TokenService
  log: Logger
}

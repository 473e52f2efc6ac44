/**
 * What every capability is built from: the validated config, the logger, the open store and the
 * master key. Built once by the boot sequence; capabilities never open their own.
 */
import type { Config } from './platform/config/schema.js';
import type { Db, Store } from './platform/db/database.js';
import type { Logger } from './platform/log.js';

export interface Kernel {
  readonly config: Config;
  readonly log: Logger;
  readonly store: Store;
  readonly db: Db;
  readonly masterKey: Buffer;
}

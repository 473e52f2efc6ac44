/**
 * `posthorn storage copy --to URL`: moves an installation from SQLite to PostgreSQL. It copies
 * every table of the configured SQLite store into the empty PostgreSQL database at URL (migrated
 * first), showing each table's progress, then compares the row counts of every table. It refuses
 * a target that holds any row. Run it with the service stopped; afterwards set `[storage] engine =
 * "postgresql"` and `url`, and keep the data directory's master key on every node.
 */
import { existsSync } from 'node:fs';
import { databaseFile, openConfiguredStore, openPostgresStore } from '../platform/db/database.js';
import { redactedUrl } from '../platform/db/database-pg.js';
import { CopyRefused, copySqliteToPostgres } from '../platform/db/copy.js';
import { migrateToLatest } from '../platform/db/migrate.js';
import { type Command, type Group, stringOption, UsageError } from './command.js';
import { loadExistingConfig } from './context.js';

const copyCommand: Command = {
  kind: 'command',
  name: 'copy',
  summary:
    'Copy every table of the SQLite store into an empty PostgreSQL database (service stopped), then verify the row counts.',
  options: { to: { type: 'string' }, 'password-file': { type: 'string' } },
  help: {
    to: 'The PostgreSQL database to copy into: postgres://user@host:port/db (it must be empty; it is migrated first).',
    'password-file':
      "A file whose first line is the target's password (else the URL's, else $PGPASSWORD); never printed.",
  },
  async run(values, _positionals, io) {
    const to = stringOption(values, 'to');
    if (to === undefined || !/^postgres(ql)?:\/\//.test(to))
      throw new UsageError('--to must name the target database: postgres://user@host:port/db');
    const passwordFile = stringOption(values, 'password-file') ?? '';
    if (passwordFile !== '' && !existsSync(passwordFile))
      throw new UsageError(`--password-file ${passwordFile} does not exist`);
    const { config } = loadExistingConfig(values);
    if (config.storage.engine !== 'sqlite')
      throw new UsageError(
        'storage copy reads the SQLite store, and [storage] engine is not "sqlite" in this config',
      );
    const file = databaseFile(config.storage.data_dir);
    if (!existsSync(file)) throw new UsageError(`there is no SQLite store at ${file} to copy`);
    const where = redactedUrl(to);
    const started = performance.now();
    // The SQLite store ([storage] engine is "sqlite", checked above), with its configured settings.
    const source = openConfiguredStore(config.storage);
    const target = openPostgresStore({ url: to, password_file: passwordFile, pool_size: 2 });
    try {
      // Both schemas at this version's latest, so that their tables and columns match.
      await migrateToLatest(source.db);
      await migrateToLatest(target.db);
      io.out(`Copying ${file} into ${where} ...`);
      const tables = await copySqliteToPostgres(source, target, { say: (line) => io.out(line) });
      const rows = tables.reduce((sum, table) => sum + table.source, 0);
      const wrong = tables.filter((table) => table.source !== table.target);
      if (wrong.length > 0) {
        for (const table of wrong)
          io.err(`posthorn: ${table.table}: ${table.source} rows in SQLite, ${table.target} in PostgreSQL`);
        io.err('posthorn: the copy does not match; do not switch to it (drop the database and copy again)');
        return 1;
      }
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      io.out(`Verified: ${tables.length} tables, ${rows} rows, every count matches (${seconds} s).`);
      io.out(
        `Next: set [storage] engine = "postgresql" and url = "${where}" on every node, with this data directory's master key.`,
      );
      return 0;
    } catch (error) {
      if (!(error instanceof CopyRefused)) throw error;
      io.err(`posthorn: ${error.message}`);
      return 1;
    } finally {
      await Promise.all([source.close(), target.close()]);
    }
  },
};

export const storageGroup: Group = {
  kind: 'group',
  name: 'storage',
  summary: 'The database: copy a SQLite installation to PostgreSQL.',
  children: [copyCommand],
};

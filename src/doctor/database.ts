/**
 * The database: on SQLite, whether the file is there and which migrations it has; on PostgreSQL,
 * whether the server answers at `[storage] url` (the password never shown), its version (13 or
 * later: the event log's commit-safe order needs `pg_current_xact_id`), and the migrations it
 * has. A database a newer Posthorn migrated fails (this version cannot run on it); one missing
 * migrations warns (`posthorn migrate`, or the next `serve`, applies them). Nothing is written.
 */
import { existsSync } from 'node:fs';
import { sql } from 'kysely';
import type { Config } from '../platform/config/schema.js';
import { databaseFile, openConfiguredStore, openPostgresStore, type Store } from '../platform/db/database.js';
import { redactedUrl } from '../platform/db/database-pg.js';
import { migrations as sqliteMigrations } from '../platform/db/migrations/index.js';
import { migrations as postgresMigrations } from '../platform/db/migrations-pg/index.js';
import { type Finding, fail, ok, warn } from './finding.js';

/** The oldest PostgreSQL major version Posthorn runs on. */
export const POSTGRES_MIN_MAJOR = 13;

export interface DatabaseCheck {
  readonly findings: Finding[];
  /** Where the data is (the file, or the URL without its password). */
  readonly where: string;
  /** Whether the store can be opened for the checks that read it (domains, routes). */
  readonly usable: boolean;
}

export async function databaseFindings(storage: Config['storage']): Promise<DatabaseCheck> {
  if (storage.engine === 'postgresql') return postgresFindings(storage);
  const where = databaseFile(storage.data_dir);
  if (!existsSync(where))
    return {
      where,
      usable: false,
      findings: [ok('database', `SQLite: no database yet at ${where}; posthorn serve creates it.`, where)],
    };
  const store = openConfiguredStore(storage);
  try {
    const migrations = await migrationFindings(store, Object.keys(sqliteMigrations), where, 'SQLite');
    return { where, usable: migrations.usable, findings: migrations.findings };
  } catch (error) {
    return {
      where,
      usable: false,
      findings: [
        fail(
          'database',
          `SQLite: ${where} cannot be read: ${reason(error)}.`,
          'check the file and its permissions',
          where,
        ),
      ],
    };
  } finally {
    await store.close();
  }
}

async function postgresFindings(storage: Config['storage']): Promise<DatabaseCheck> {
  const where = redactedUrl(storage.url);
  let store: Store;
  try {
    store = openPostgresStore({ url: storage.url, password_file: storage.password_file, pool_size: 1 });
  } catch (error) {
    return {
      where,
      usable: false,
      findings: [
        fail(
          'database',
          `PostgreSQL: cannot connect to ${where}: ${reason(error)}.`,
          'check [storage] url and password_file',
          where,
        ),
      ],
    };
  }
  try {
    let version: { num: number; text: string };
    try {
      const { rows } = await sql<{ num: number; text: string }>`
        select current_setting('server_version_num')::int as num, current_setting('server_version') as text`.execute(
        store.db,
      );
      version = rows[0] as { num: number; text: string };
    } catch (error) {
      return {
        where,
        usable: false,
        findings: [
          fail(
            'database',
            `PostgreSQL does not answer at ${where}: ${reason(error)}.`,
            'start PostgreSQL, or fix [storage] url (host, port, user, database) and password_file',
            where,
          ),
        ],
      };
    }
    const major = Math.floor(version.num / 10_000);
    const reached = ok('database', `PostgreSQL ${version.text} answers at ${where}.`, where);
    if (major < POSTGRES_MIN_MAJOR)
      return {
        where,
        usable: false,
        findings: [
          fail(
            'database',
            `PostgreSQL ${version.text} at ${where} is older than ${POSTGRES_MIN_MAJOR}, the oldest Posthorn runs on.`,
            `upgrade PostgreSQL to ${POSTGRES_MIN_MAJOR} or later`,
            where,
          ),
        ],
      };
    const migrations = await migrationFindings(store, Object.keys(postgresMigrations), where, 'PostgreSQL');
    return { where, usable: migrations.usable, findings: [reached, ...migrations.findings] };
  } finally {
    await store.close();
  }
}

/** Which of this version's migrations the database has, and any it has that this version lacks. */
async function migrationFindings(
  store: Store,
  known: readonly string[],
  where: string,
  engine: string,
): Promise<{ usable: boolean; findings: Finding[] }> {
  const exists =
    store.engine === 'postgresql'
      ? (
          await sql<{ found: boolean }>`select to_regclass('kysely_migration') is not null as found`.execute(
            store.db,
          )
        ).rows[0]?.found === true
      : (
          await sql<{
            n: number;
          }>`select count(*) as n from sqlite_master where name = 'kysely_migration'`.execute(store.db)
        ).rows[0]?.n === 1;
  const applied = exists
    ? (await sql<{ name: string }>`select name from kysely_migration`.execute(store.db)).rows.map(
        (r) => r.name,
      )
    : [];
  const newer = applied.filter((name) => !known.includes(name)).sort();
  if (newer.length > 0)
    return {
      usable: false,
      findings: [
        fail(
          'migrations',
          `${engine}: the database was migrated by a newer Posthorn (it has ${newer.join(', ')}, unknown to this version).`,
          'run the Posthorn version that migrated it, or a later one',
          where,
        ),
      ],
    };
  const pending = known.filter((name) => !applied.includes(name));
  if (pending.length > 0)
    return {
      usable: true,
      findings: [
        warn(
          'migrations',
          `${engine}: ${pending.length} of ${known.length} migrations are not applied yet (${pending.slice(0, 3).join(', ')}${pending.length > 3 ? ', …' : ''}).`,
          'run posthorn migrate (posthorn serve also applies them at start)',
          where,
        ),
      ],
    };
  return {
    usable: true,
    findings: [ok('migrations', `${engine}: all ${known.length} migrations applied.`, where)],
  };
}

const reason = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).replace(
    /postgres(ql)?:\/\/[^\s@]*@/gi,
    'postgres://***@',
  );

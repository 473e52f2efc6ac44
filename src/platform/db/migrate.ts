/**
 * Runs pending migrations at boot and for `posthorn migrate`. Each migration and the bookkeeping row
 * that records it commit in ONE `BEGIN IMMEDIATE ... COMMIT`, so a process killed halfway (a long
 * 0008 body copy, a DROP before its RENAME) leaves the database exactly as it was before that
 * migration, and the next start simply runs it again. SQLite's DDL is transactional; Kysely's
 * migrator does not use that for SQLite (its adapter says it cannot), hence this small migrator.
 *
 * On PostgreSQL the run holds a session advisory lock (MIGRATION_LOCK) from start to end, so two
 * nodes started at once migrate one after the other, and each migration commits in its own
 * transaction with its bookkeeping row; the list is ./migrations-pg/ (the schema as it stands).
 *
 * It keeps Kysely's bookkeeping table (`kysely_migration`: name, ISO timestamp), so databases
 * migrated before, and tests that step through migrations with Kysely's `Migrator`, stay valid.
 * It must never run a migration outside its transaction, nor one another process recorded while
 * this one waited for the lock (two commands started at once on a fresh install).
 *
 * @example
 *   await migrateToLatest(store.db, { onApplied: (name, ms) => log.info({ name, ms }, 'migrated') });
 */
import { sql } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Db } from './database.js';
import { engineOf } from './engine.js';
import { migrations as allMigrations } from './migrations/index.js';
import { migrations as postgresMigrations } from './migrations-pg/index.js';

const TABLE = 'kysely_migration';
/** The advisory lock key `posthorn migrate` and every starting node hold on PostgreSQL while migrating. */
export const MIGRATION_LOCK = 7_370_001;

/**
 * A migration as Kysely's `Migrator` runs it, whose `up` may also report through `warn` what an
 * operator must hear of (rows it had to change to apply, such as a renamed duplicate).
 */
export interface PosthornMigration extends Migration {
  up(db: Parameters<Migration['up']>[0], warn?: (message: string) => void): Promise<void>;
}

export interface MigrateOptions {
  /** The migrations to apply; the released list unless a test provides its own. */
  readonly migrations?: Readonly<Record<string, PosthornMigration>>;
  /** Called before a migration starts, e.g. to say that a long one is running. */
  readonly onStart?: (name: string) => void;
  /** Called after a migration committed, with how long it took. */
  readonly onApplied?: (name: string, ms: number) => void;
  /** Called with what a migration reports as changed data (after it committed); log it as a warning. */
  readonly onWarning?: (name: string, message: string) => void;
}

/** Applies every pending migration in name order; returns the names applied. */
export async function migrateToLatest(db: Db, options: MigrateOptions = {}): Promise<string[]> {
  const postgres = engineOf(db) === 'postgresql';
  const available = options.migrations ?? (postgres ? postgresMigrations : allMigrations);
  const names = Object.keys(available).sort();
  // One connection for the whole run: nothing else may slip a statement into a migration's transaction.
  return db.connection().execute(async (conn) => {
    if (postgres) await sql`select pg_advisory_lock(${MIGRATION_LOCK})`.execute(conn);
    try {
      return await migrateOn(conn, postgres, names, available, options);
    } finally {
      if (postgres) await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.execute(conn);
    }
  });
}

async function migrateOn(
  conn: Db,
  postgres: boolean,
  names: readonly string[],
  available: Readonly<Record<string, PosthornMigration>>,
  options: MigrateOptions,
): Promise<string[]> {
  {
    await sql`create table if not exists ${sql.table(TABLE)} (
      name varchar(255) not null primary key, timestamp varchar(255) not null)`.execute(conn);
    const pending = await pendingMigrations(conn, names);
    const applied: string[] = [];
    for (const name of pending) {
      const started = performance.now();
      const warnings: string[] = [];
      const ran = await applyOne(conn, postgres, name, available[name] as PosthornMigration, {
        warn: (message) => warnings.push(message),
        onStart: () => options.onStart?.(name),
      });
      // Another process (two commands started at once on a fresh install) applied it first.
      if (!ran) continue;
      options.onApplied?.(name, Math.round(performance.now() - started));
      // Said once the migration stands: a rolled-back one changed nothing.
      for (const message of warnings) options.onWarning?.(name, message);
      applied.push(name);
    }
    return applied;
  }
}

async function pendingMigrations(conn: Db, names: readonly string[]): Promise<string[]> {
  const rows = await sql<{ name: string }>`select name from ${sql.table(TABLE)}`.execute(conn);
  const executed = new Set(rows.rows.map((r) => r.name));
  for (const name of executed) {
    if (!names.includes(name))
      throw new Error(
        `the database was migrated by a newer Posthorn (it has migration ${name}, which this version does not know)`,
      );
  }
  const pending = names.filter((n) => !executed.has(n));
  const lastExecuted = names.filter((n) => executed.has(n)).at(-1);
  const early = lastExecuted === undefined ? undefined : pending.find((n) => n < lastExecuted);
  if (early !== undefined)
    throw new Error(`migration ${early} sorts before the already applied ${lastExecuted}; it cannot run now`);
  return pending;
}

/** Applies `name` unless another process recorded it while this one waited for the lock; whether it ran. */
async function applyOne(
  conn: Db,
  postgres: boolean,
  name: string,
  migration: PosthornMigration,
  hooks: { readonly warn: (message: string) => void; readonly onStart: () => void },
): Promise<boolean> {
  // IMMEDIATE takes the write lock up front, so a server started beside `posthorn migrate` waits
  // (busy timeout) instead of failing halfway. PostgreSQL's run already holds the advisory lock.
  await (postgres ? sql`begin` : sql`begin immediate`).execute(conn);
  try {
    // The pending list was read before the lock: look again now that no one else can write.
    if (await isRecorded(conn, name)) {
      await sql`rollback`.execute(conn);
      return false;
    }
    hooks.onStart();
    await migration.up(conn, hooks.warn);
    await sql`insert into ${sql.table(TABLE)} (name, timestamp) values (${name}, ${await nextTimestamp(conn)})`.execute(
      conn,
    );
    await sql`commit`.execute(conn);
    return true;
  } catch (error) {
    await sql`rollback`.execute(conn).catch(() => {});
    throw new Error(`migration ${name} failed (nothing of it was applied): ${String(error)}`, {
      cause: error,
    });
  }
}

async function isRecorded(conn: Db, name: string): Promise<boolean> {
  const rows = await sql`select 1 from ${sql.table(TABLE)} where name = ${name}`.execute(conn);
  return rows.rows.length > 0;
}

/** Kysely orders applied migrations by timestamp: keep them strictly increasing, as it does. */
async function nextTimestamp(conn: Db): Promise<string> {
  const rows = await sql<{
    latest: string | null;
  }>`select max(timestamp) as latest from ${sql.table(TABLE)}`.execute(conn);
  const latest = rows.rows[0]?.latest ? Date.parse(rows.rows[0].latest) : 0;
  const now = Date.now();
  return new Date(now > latest ? now : latest + 1).toISOString();
}

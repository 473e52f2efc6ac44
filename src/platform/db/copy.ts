/**
 * `posthorn storage copy`: every table of a SQLite store into an empty, migrated PostgreSQL
 * database, in one PostgreSQL transaction (a copy that fails leaves the target as empty as it
 * found it), then the row counts of both compared table by table.
 *
 * The source is read in one read transaction, so the copy is one consistent moment of it even if
 * something wrote meanwhile (the service must be stopped: what it writes after that moment is not
 * copied). Tables go in foreign-key order; the columns are those both schemas have (the schema
 * comparison test keeps them alike), plus the PostgreSQL columns standing for SQLite's rowid
 * (`messages.rowid`, `message_recipients.rowid`, `message_search.rowid`), which take the rowid so
 * the history index keeps pointing at the right messages. Events go in ID order, so their sequence
 * (`events.seq`) follows the order SQLite readers used. Identity sequences are moved past the
 * copied values at the end. SQLite's internal tables (FTS5 shadow tables, sqlite_sequence) have no
 * counterpart and are not copied.
 */
import { sql } from 'kysely';
import type { Store } from './database.js';

/** Tables the migrators own: each engine keeps its own migration history. */
const SKIPPED = new Set(['kysely_migration', 'kysely_migration_lock']);
/** Bound parameters per insert: PostgreSQL allows 65,535. */
const PARAMETERS = 30_000;
/** Progress is said at most this often per table (ms). */
const PROGRESS_MS = 2000;

export class CopyRefused extends Error {}

export interface CopiedTable {
  readonly table: string;
  readonly source: number;
  readonly target: number;
}

export interface CopyOptions {
  /** Told what happens, one line at a time (table started, progress, done). */
  readonly say: (line: string) => void;
}

export async function copySqliteToPostgres(
  source: Store,
  target: Store,
  options: CopyOptions,
): Promise<CopiedTable[]> {
  if (source.engine !== 'sqlite' || target.engine !== 'postgresql')
    throw new Error('storage copy goes from SQLite to PostgreSQL');
  const tables = await targetTables(target);
  const nonEmpty: string[] = [];
  for (const table of tables) {
    const { rows } = await sql<{
      found: boolean;
    }>`select exists (select 1 from ${sql.table(table)}) as found`.execute(target.db);
    if (rows[0]?.found) nonEmpty.push(table);
  }
  if (nonEmpty.length > 0)
    throw new CopyRefused(
      `the target database is not empty (rows in ${nonEmpty.slice(0, 5).join(', ')}${nonEmpty.length > 5 ? ', …' : ''}); copy only into a new, empty database`,
    );

  const sqlite = source.sqlite;
  const sourceTables = new Set(
    (sqlite.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map(
      (row) => row.name,
    ),
  );
  const missing = tables.filter((table) => !sourceTables.has(table));
  if (missing.length > 0) options.say(`Not in the SQLite store (left empty): ${missing.join(', ')}.`);

  const counts = new Map<string, number>();
  sqlite.exec('begin');
  try {
    await target.db.transaction().execute(async (trx) => {
      for (const table of tables) {
        if (!sourceTables.has(table)) continue;
        const columns = await copyColumns(trx, sqlite, table);
        const total = (sqlite.prepare(`select count(*) as n from "${table}"`).get() as { n: number }).n;
        counts.set(table, total);
        if (total === 0) {
          options.say(`${table}: empty.`);
          continue;
        }
        options.say(`${table}: copying ${total} rows ...`);
        const order = table === 'events' ? ' order by id' : hasRowid(sqlite, table) ? ' order by rowid' : '';
        const select = sqlite.prepare(
          `select ${columns.map((c) => (c.fromRowid ? 'rowid' : `"${c.name}"`)).join(', ')} from "${table}"${order}`,
        );
        select.raw(true);
        const size = Math.max(1, Math.min(1000, Math.floor(PARAMETERS / columns.length)));
        let batch: unknown[][] = [];
        let copied = 0;
        let said = Date.now();
        const flush = async () => {
          if (batch.length === 0) return;
          const values = sql.join(batch.map((row) => sql`(${sql.join(row.map((value) => sql`${value}`))})`));
          await sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c.name)))}) values ${values}`.execute(
            trx,
          );
          copied += batch.length;
          batch = [];
          if (Date.now() - said >= PROGRESS_MS) {
            said = Date.now();
            options.say(`${table}: ${copied} of ${total} rows`);
          }
        };
        for (const row of select.iterate() as Iterable<unknown[]>) {
          batch.push(row);
          if (batch.length >= size) await flush();
        }
        await flush();
        options.say(`${table}: ${copied} rows copied.`);
      }
      await advanceIdentities(trx);
    });
  } finally {
    sqlite.exec('rollback');
  }

  const verified: CopiedTable[] = [];
  for (const table of tables) {
    const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(
      target.db,
    );
    verified.push({ table, source: counts.get(table) ?? 0, target: Number(rows[0]?.n ?? 0) });
  }
  return verified;
}

/** The target's tables, parents before the tables whose foreign keys point at them. */
async function targetTables(target: Store): Promise<string[]> {
  const { rows: all } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
     where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(
    target.db,
  );
  const { rows: edges } = await sql<{ child: string; parent: string }>`
    select c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent
      from pg_constraint c where c.contype = 'f' and c.connamespace = current_schema()::regnamespace`.execute(
    target.db,
  );
  const names = all.map((row) => row.name).filter((name) => !SKIPPED.has(name));
  const parents = new Map<string, Set<string>>(names.map((name) => [name, new Set()]));
  for (const { child, parent } of edges)
    if (child !== parent) parents.get(unquote(child))?.add(unquote(parent));
  const ordered: string[] = [];
  const placed = new Set<string>();
  const visit = (name: string, path: Set<string>) => {
    if (placed.has(name) || path.has(name)) return;
    path.add(name);
    for (const parent of parents.get(name) ?? []) visit(parent, path);
    placed.add(name);
    ordered.push(name);
  };
  for (const name of names) visit(name, new Set());
  return ordered;
}

const unquote = (name: string) => name.replace(/^"|"$/g, '');

interface Column {
  readonly name: string;
  /** A PostgreSQL column standing for SQLite's rowid, filled from it. */
  readonly fromRowid: boolean;
}

/** The columns copied into `table`: those both sides have, and `rowid` from SQLite's rowid. */
async function copyColumns(trx: Store['db'], sqlite: Store['sqlite'], table: string): Promise<Column[]> {
  const { rows } = await sql<{ name: string }>`
    select column_name as name from information_schema.columns
     where table_schema = current_schema() and table_name = ${table} order by ordinal_position`.execute(trx);
  const sourceColumns = new Set(
    (sqlite.prepare(`select name from pragma_table_info('${table}')`).all() as { name: string }[]).map(
      (c) => c.name,
    ),
  );
  const columns: Column[] = [];
  for (const { name } of rows) {
    if (sourceColumns.has(name)) columns.push({ name, fromRowid: false });
    else if (name === 'rowid' && hasRowid(sqlite, table)) columns.push({ name, fromRowid: true });
  }
  return columns;
}

function hasRowid(sqlite: Store['sqlite'], table: string): boolean {
  try {
    sqlite.prepare(`select rowid from "${table}" limit 1`).get();
    return true;
  } catch {
    return false;
  }
}

/** Moves every identity sequence past the largest value copied into its column. */
async function advanceIdentities(trx: Store['db']): Promise<void> {
  const { rows } = await sql<{ table_name: string; column_name: string }>`
    select table_name, column_name from information_schema.columns
     where table_schema = current_schema() and is_identity = 'YES'`.execute(trx);
  for (const { table_name: table, column_name: column } of rows) {
    await sql`select setval(pg_get_serial_sequence(${`"${table}"`}, ${column}),
                coalesce((select max(${sql.ref(column)}) from ${sql.table(table)}), 0) + 1, false)`.execute(
      trx,
    );
  }
}

/**
 * The shape of a migrated schema on either engine, for comparing them (the schema comparison test,
 * `posthorn doctor`): each table's columns with their type family and nullability, and the column
 * lists of its unique keys (primary key, unique constraints, unique indexes without a WHERE).
 * Tables that only carry one engine's machinery are left out (SQLite's own and its FTS5 shadow
 * tables, the migrator's bookkeeping).
 */
import { sql } from 'kysely';
import type { Db, Store } from './database.js';

export type TypeFamily = 'integer' | 'text' | 'bytes' | 'real' | 'other';

export interface ColumnShape {
  readonly type: TypeFamily;
  readonly nullable: boolean;
}

export interface TableShape {
  readonly columns: ReadonlyMap<string, ColumnShape>;
  /** Each unique key as its columns joined by ",". */
  readonly uniqueKeys: ReadonlySet<string>;
}

export type SchemaShape = ReadonlyMap<string, TableShape>;

const ENGINE_ONLY = /^(sqlite_|kysely_migration|message_search)/;

function family(type: string): TypeFamily {
  const t = type.toLowerCase();
  if (/int/.test(t)) return 'integer';
  if (/char|text|clob/.test(t)) return 'text';
  if (/blob|bytea/.test(t)) return 'bytes';
  if (/real|floa|doub|numeric/.test(t)) return 'real';
  return 'other';
}

export async function schemaShape(store: Store): Promise<SchemaShape> {
  return store.engine === 'postgresql' ? postgresShape(store.db) : sqliteShape(store);
}

function sqliteShape(store: Store): SchemaShape {
  const sqlite = store.sqlite;
  const shape = new Map<string, TableShape>();
  const tables = sqlite
    .prepare("select name from sqlite_master where type = 'table' order by name")
    .all() as { name: string }[];
  for (const { name } of tables) {
    if (ENGINE_ONLY.test(name)) continue;
    const columns = new Map<string, ColumnShape>();
    const info = sqlite.prepare('select name, type, "notnull", pk from pragma_table_info(?)').all(name) as {
      name: string;
      type: string;
      notnull: number;
      pk: number;
    }[];
    for (const c of info)
      columns.set(c.name, { type: family(c.type), nullable: c.notnull === 0 && c.pk === 0 });
    const uniqueKeys = new Set<string>();
    const pk = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    if (pk.length > 0) uniqueKeys.add(pk.map((c) => c.name).join(','));
    const indexes = sqlite.prepare('select name, "unique", partial from pragma_index_list(?)').all(name) as {
      name: string;
      unique: number;
      partial: number;
    }[];
    for (const index of indexes) {
      if (index.unique !== 1 || index.partial === 1) continue;
      const cols = sqlite.prepare('select name from pragma_index_info(?) order by seqno').all(index.name) as {
        name: string;
      }[];
      uniqueKeys.add(cols.map((c) => c.name).join(','));
    }
    shape.set(name, { columns, uniqueKeys });
  }
  return shape;
}

async function postgresShape(db: Db): Promise<SchemaShape> {
  const shape = new Map<string, TableShape>();
  const { rows: columns } = await sql<{
    table_name: string;
    column_name: string;
    data_type: string;
    is_nullable: string;
  }>`select table_name, column_name, data_type, is_nullable from information_schema.columns
     where table_schema = current_schema() order by table_name, ordinal_position`.execute(db);
  for (const c of columns) {
    if (ENGINE_ONLY.test(c.table_name)) continue;
    let table = shape.get(c.table_name);
    if (!table) {
      table = { columns: new Map(), uniqueKeys: new Set() };
      shape.set(c.table_name, table);
    }
    (table.columns as Map<string, ColumnShape>).set(c.column_name, {
      type: family(c.data_type),
      nullable: c.is_nullable === 'YES',
    });
  }
  const { rows: keys } = await sql<{ table_name: string; columns: string }>`
    select t.relname as table_name,
           string_agg(a.attname, ',' order by k.ordinality) as columns
      from pg_index i
      join pg_class t on t.oid = i.indrelid
      join pg_namespace n on n.oid = t.relnamespace and n.nspname = current_schema()
      cross join lateral unnest(i.indkey) with ordinality as k(attnum, ordinality)
      join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
     where i.indisunique and i.indpred is null
     group by t.relname, i.indexrelid`.execute(db);
  for (const key of keys)
    (shape.get(key.table_name)?.uniqueKeys as Set<string> | undefined)?.add(key.columns);
  return shape;
}

/**
 * What PostgreSQL lacks of SQLite's schema, one sentence each: a table, a column, a column of
 * another type family or nullability, a unique key. PostgreSQL may have more (its adapters' columns).
 */
export function missingOnPostgres(sqliteShape: SchemaShape, postgresShape: SchemaShape): string[] {
  const problems: string[] = [];
  for (const [table, lite] of sqliteShape) {
    const pg = postgresShape.get(table);
    if (!pg) {
      problems.push(`table ${table} exists on SQLite but not on PostgreSQL`);
      continue;
    }
    for (const [column, want] of lite.columns) {
      const have = pg.columns.get(column);
      if (!have) problems.push(`column ${table}.${column} exists on SQLite but not on PostgreSQL`);
      else if (have.type !== want.type)
        problems.push(`column ${table}.${column} is ${want.type} on SQLite but ${have.type} on PostgreSQL`);
      else if (have.nullable !== want.nullable)
        problems.push(
          `column ${table}.${column} is ${want.nullable ? 'nullable' : 'not null'} on SQLite but ${have.nullable ? 'nullable' : 'not null'} on PostgreSQL`,
        );
    }
    for (const key of lite.uniqueKeys)
      if (!pg.uniqueKeys.has(key))
        problems.push(`unique key ${table}(${key}) exists on SQLite but not on PostgreSQL`);
  }
  return problems;
}

/**
 * Raw SQL from a test against the server's store on either engine: `?` placeholders, rows as
 * objects. On SQLite the raw handle runs it; on PostgreSQL the pool does, the placeholders
 * numbered ($1, $2, ...). For tests that set up or read rows the API does not reach.
 *
 * @example
 *   const [row] = await query<{ n: number }>(ph.server.kernel.store, 'select count(*) as n from events where type = ?', 'email.sent');
 */
import { execFileSync } from 'node:child_process';
import type { Store } from '../../src/platform/db/database.js';

export async function query<T = Record<string, unknown>>(
  store: Store,
  text: string,
  ...params: unknown[]
): Promise<T[]> {
  if (store.engine === 'sqlite') {
    const statement = store.sqlite.prepare(text);
    if (statement.reader) return statement.all(...params) as T[];
    statement.run(...params);
    return [];
  }
  let n = 0;
  const numbered = text.replace(/\?/g, () => `$${++n}`);
  const result = await (store.pool as NonNullable<Store['pool']>).query(numbered, params);
  return result.rows as T[];
}

/**
 * Makes every insert into `table` fail with `message` (when `when` holds, an SQL condition on
 * `new`), on either engine: a test's way to break a write in the middle of a transaction.
 */
export async function failInserts(
  store: Store,
  options: { name: string; table: string; message: string; when?: string },
): Promise<void> {
  const { name, table, message, when } = options;
  if (store.engine === 'sqlite') {
    store.sqlite.exec(
      `create trigger ${name} before insert on ${table} ${when ? `when (${when})` : ''}
       begin select raise(abort, '${message}'); end`,
    );
    return;
  }
  await query(
    store,
    `create function ${name}() returns trigger language plpgsql as $$
     begin
       if ${when ?? 'true'} then raise exception '${message}'; end if;
       return new;
     end $$`,
  );
  await query(
    store,
    `create trigger ${name} before insert on ${table} for each row execute function ${name}()`,
  );
}

/** Removes a trigger `failInserts` made. */
export async function stopFailingInserts(store: Store, name: string, table: string): Promise<void> {
  if (store.engine === 'sqlite') store.sqlite.exec(`drop trigger ${name}`);
  else await query(store, `drop trigger ${name} on ${table}`);
}

/**
 * `query` synchronously, for helpers whose callers read rows without awaiting: on PostgreSQL the
 * statement goes through `psql` (Debian's postgresql-client) as one JSON array; `?` placeholders
 * become psql variables, so values are quoted by psql, never pasted into the SQL.
 */
export function querySync<T = Record<string, unknown>>(
  store: Store,
  url: string,
  text: string,
  params: readonly unknown[],
): T[] {
  if (store.engine === 'sqlite') {
    const statement = store.sqlite.prepare(text);
    if (statement.reader) return statement.all(...params) as T[];
    statement.run(...params);
    return [];
  }
  const variables: string[] = [];
  let n = 0;
  const numbered = text.replace(/\?/g, () => {
    const value = params[n++];
    if (value === null || value === undefined) return 'null';
    if (typeof value === 'number' || typeof value === 'bigint') return String(value);
    variables.push('-v', `p${n}=${String(value)}`);
    return `:'p${n}'`;
  });
  const out = execFileSync('psql', [url, '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', ...variables], {
    input: `select coalesce(json_agg(q), '[]') from (${numbered}) q;\n`,
    encoding: 'utf8',
  });
  return JSON.parse(out) as T[];
}

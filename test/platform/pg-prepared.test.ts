/**
 * The PostgreSQL pool prepares a statement it sends again, once per connection
 * (platform/db/pg-prepared.ts), and a connection whose prepared statement the schema outgrew
 * goes on unnamed.
 */
import test from 'ava';
import { sql } from 'kysely';
import { openPostgresStore } from '../../src/platform/db/database.js';
import { statementName } from '../../src/platform/db/pg-prepared.js';
import { freshDatabase } from '../helpers/postgres.js';

async function oneConnection(t: Parameters<typeof freshDatabase>[0]) {
  const { url } = await freshDatabase(t);
  const store = openPostgresStore({ url, password_file: '', pool_size: 1 });
  t?.teardown(() => store.close());
  return store.db;
}

const prepared = async (db: Awaited<ReturnType<typeof oneConnection>>) =>
  (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db)).rows.map(
    (row) => row.statement,
  );

test('a statement sent again with parameters is prepared once on its connection; one sent once is not', async (t) => {
  const db = await oneConnection(t);
  await sql`create table notes (id bigint primary key, body text not null)`.execute(db);
  for (let i = 1; i <= 3; i++) await sql`insert into notes values (${i}, ${`note ${i}`})`.execute(db);
  await sql`select body from notes where id = ${1} and body <> ${'once'}`.execute(db);
  const statements = await prepared(db);
  t.deepEqual(
    statements.filter((s) => s.startsWith('insert into notes')),
    ['insert into notes values ($1, $2)'],
  );
  t.false(
    statements.some((s) => s.includes("'once'") || s.includes('body <>')),
    'a statement sent once stays unnamed',
  );
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from notes where id > ${0}`.execute(db);
  t.is(rows[0]?.n, 3);
  t.is(statementName('select 1 where $1::int = 1'), undefined, 'named from the second use');
  t.regex(statementName('select 1 where $1::int = 1') ?? '', /^ph_[0-9a-f]{24}$/);
});

test('a connection whose prepared statement the schema outgrew fails that query, then goes on unnamed', async (t) => {
  const db = await oneConnection(t);
  await sql`create table notes (id bigint primary key, body text not null)`.execute(db);
  await sql`insert into notes values (${1}, ${'one'})`.execute(db);
  const read = () => sql<{ id: number }>`select * from notes where id = ${1}`.execute(db);
  await read();
  await read(); // prepared now
  await sql`alter table notes add column extra text`.execute(db);
  const stale = await t.throwsAsync(read());
  t.regex(stale?.message ?? '', /cached plan must not change result type/);
  const { rows } = await read();
  t.like(rows[0], { id: 1, extra: null });
  const before = await prepared(db);
  for (const id of [2, 3]) await sql`insert into notes (id, body) values (${id}, ${'later'})`.execute(db);
  t.deepEqual(await prepared(db), before, 'nothing more is prepared on it');
});

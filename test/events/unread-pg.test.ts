/**
 * Whether committed events lie beyond a consumer's cursor on PostgreSQL (events/log-pg.ts'
 * `unreadBeyondCursor`, what a report's catch-up asks before it stops): right in every case of
 * the cursor, and a couple of index seeks whatever the size of the log.
 */
import test from 'ava';
import { sql } from 'kysely';
import { createCursorStore } from '../../src/events/cursors.js';
import { unreadBeyondCursor } from '../../src/events/log-pg.js';
import type { Db } from '../../src/platform/db/database.js';
import { migratedStore } from '../helpers/engines.js';

const append = (db: Db, ids: readonly string[]) =>
  db
    .insertInto('events')
    .values(ids.map((id) => ({ id, project_id: 'prj_1', type: 'email.sent', data: '{}', created_at: 1 })))
    .execute();

test('a consumer has unread events exactly when one was committed after its cursor', async (t) => {
  const { db } = await migratedStore(t, 'postgresql');
  const cursors = createCursorStore(db);
  t.false(await unreadBeyondCursor(db, 'reader'), 'no cursor, no events');
  await append(db, ['evt_01', 'evt_02']);
  t.true(await unreadBeyondCursor(db, 'reader'), 'no cursor yet, events stored');

  await cursors.set('reader', 'evt_02');
  t.false(await unreadBeyondCursor(db, 'reader'), 'read up to the newest');
  await cursors.set('reader', 'evt_01');
  t.true(await unreadBeyondCursor(db, 'reader'), 'one behind');

  // Committed later by (tx, seq) though its ID sorts first: a later transaction's event.
  await cursors.set('reader', 'evt_02');
  await append(db, ['evt_00']);
  t.true(await unreadBeyondCursor(db, 'reader'), 'an event committed after the cursor, whatever its ID');

  // The cursor's event removed by retention: events after it by ID.
  await cursors.set('reader', 'evt_05');
  t.false(await unreadBeyondCursor(db, 'reader'), 'retention removed the cursor event, nothing after it');
  await append(db, ['evt_06']);
  t.true(await unreadBeyondCursor(db, 'reader'), 'retention removed the cursor event, one after it');
});

test('the question costs index seeks, not a scan of the log', async (t) => {
  const { db } = await migratedStore(t, 'postgresql');
  await sql`insert into events (id, project_id, type, data, created_at)
            select 'evt_' || lpad(i::text, 9, '0'), 'prj_1', 'email.sent', '{}', 1
              from generate_series(1, 100000) i`.execute(db);
  await sql`analyze events`.execute(db);
  await createCursorStore(db).set('reader', 'evt_000100000');
  // Counted in the transaction that asks: sequential scans of `events` it made.
  const scans = await db.transaction().execute(async (trx) => {
    t.false(await unreadBeyondCursor(trx, 'reader'));
    const { rows } = await sql<{ seq_scan: string }>`
      select seq_scan from pg_stat_xact_user_tables where relname = 'events'`.execute(trx);
    return Number(rows[0]?.seq_scan);
  });
  t.is(scans, 0);
});

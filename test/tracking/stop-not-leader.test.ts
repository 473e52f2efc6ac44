/**
 * Every node answers and records hits, but one node at a time runs tracking's upkeep (the holder
 * of its PostgreSQL advisory lock). A clean stop writes the hits a node holds whether or not it
 * runs that upkeep. Runs on PostgreSQL whatever POSTHORN_TEST_ENGINE says (scripts/peers starts it).
 */
import test from 'ava';
import pg from 'pg';
import { openPostgresStore } from '../../src/platform/db/database.js';
import { LOCK_NAMESPACE, lockKey } from '../../src/platform/db/leadership.js';
import { freshDatabase } from '../helpers/postgres.js';
import { startPosthorn } from '../helpers/server.js';
import { query } from '../helpers/sql.js';
import { CHROME, clickUrl, openUrl, sandboxSend } from './env.js';

test('a node that another node leads in tracking still writes every hit it answered when it stops', async (t) => {
  const database = await freshDatabase(t, { migrated: true });
  // Another node holds the tracking lock: this node never runs tracking's upkeep.
  const other = new pg.Client({ connectionString: database.url });
  await other.connect();
  t.teardown(() => other.end());
  await other.query('select pg_advisory_lock($1::int, $2::int)', [LOCK_NAMESPACE, lockKey('tracking')]);

  const ph = await startPosthorn(t, { storage: { engine: 'postgresql', url: database.url, pool_size: 4 } });
  const id = await sandboxSend(ph);
  // Clicks are held a second before they are written: all of these are held at the stop.
  const answered = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      fetch(i % 2 === 0 ? openUrl(ph, id) : clickUrl(ph, id, `https://acme.test/${i}`, i, 40), {
        redirect: 'manual',
        headers: { 'user-agent': CHROME },
      }).then((res) => res.status),
    ),
  );
  t.true(answered.every((status) => status === 200 || status === 302));
  t.false(ph.server.kernel.store.leadership.held().includes('tracking'));
  await ph.server.stop();

  const after = openPostgresStore({ url: database.url, password_file: '', pool_size: 1 });
  t.teardown(() => after.close());
  const count = async (text: string) => Number((await query<{ n: number }>(after, text, id))[0]?.n);
  t.is(await count('select count(*) as n from tracking_hits where message_id = ?'), 40);
  t.is(
    await count(
      `select count(*) as n from events where message_id = ? and type in ('email.opened', 'email.clicked')`,
    ),
    40,
  );
});

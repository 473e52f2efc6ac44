import test from 'ava';
import type pg from 'pg';
import { startPosthorn } from '../helpers/server.js';

test('findSuppressed answers 300 addresses with one query over the (project_id, mode, email) index', async (t) => {
  const ph = await startPosthorn(t);
  const { suppressions } = ph.server.services;
  const projectId = ph.owner.projectId;
  for (let i = 0; i < 300; i += 30) {
    await suppressions.add({ projectId, email: `user${i}@example.com`, reason: 'hard_bounce' });
  }
  const addresses = Array.from({ length: 300 }, (_, i) => `User${i}@Example.com`);

  const store = ph.server.kernel.store;
  const params = [projectId, 'live', ...addresses.map((a) => a.toLowerCase())];
  if (store.engine === 'postgresql') {
    // PostgreSQL: the statements the pool runs on the suppressions (other engines share the pool).
    const pool = store.pool as NonNullable<typeof store.pool>;
    const statements: string[] = [];
    const wrapped = new Map<pg.PoolClient, pg.PoolClient['query']>();
    const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
    (pool as { connect: unknown }).connect = async () => {
      const client = await connect();
      if (!wrapped.has(client)) {
        const query = client.query;
        wrapped.set(client, query);
        client.query = ((text: unknown, ...rest: unknown[]) => {
          if (typeof text === 'string' && /\bsuppressions\b/.test(text)) statements.push(text);
          return (query as (...args: unknown[]) => unknown).call(client, text, ...rest);
        }) as pg.PoolClient['query'];
      }
      return client;
    };
    let hits: Awaited<ReturnType<typeof suppressions.findSuppressed>>;
    try {
      hits = await suppressions.findSuppressed(projectId, addresses);
    } finally {
      delete (pool as { connect?: unknown }).connect;
      for (const [client, query] of wrapped) client.query = query;
    }
    t.is(statements.length, 1, statements.join('\n'));
    t.is(hits.size, 10);
    t.is(hits.get('user30@example.com')?.reason, 'hard_bounce');
    t.false(hits.has('user31@example.com'));
    // Ten rows are a sequential scan's to read: with it off, the plan shows the query can use the index.
    const client = await pool.connect();
    try {
      await client.query('begin');
      await client.query('set local enable_seqscan = off');
      const plan = await client.query(`explain ${statements[0]}`, params);
      await client.query('rollback');
      const detail = plan.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('; ');
      t.regex(
        detail,
        /(Index (Only )?Scan using|Bitmap Index Scan on) suppressions_project_mode_email/,
        detail,
      );
      t.notRegex(detail, /Seq Scan on suppressions/);
    } finally {
      client.release();
    }
    return;
  }

  const sqlite = store.sqlite;
  const statements: string[] = [];
  const prepare = sqlite.prepare.bind(sqlite);
  (sqlite as { prepare: typeof sqlite.prepare }).prepare = ((sql: string) => {
    statements.push(sql);
    return prepare(sql);
  }) as typeof sqlite.prepare;
  let hits: Awaited<ReturnType<typeof suppressions.findSuppressed>>;
  try {
    hits = await suppressions.findSuppressed(projectId, addresses);
  } finally {
    delete (sqlite as { prepare?: unknown }).prepare;
  }

  t.is(statements.length, 1, statements.join('\n'));
  t.is(hits.size, 10);
  t.is(hits.get('user30@example.com')?.reason, 'hard_bounce');
  t.false(hits.has('user31@example.com'));

  const sql = statements[0] as string;
  const plan = sqlite.prepare(`explain query plan ${sql}`).all(...params) as Array<{ detail: string }>;
  const detail = plan.map((row) => row.detail).join('; ');
  t.regex(
    detail,
    /SEARCH suppressions USING INDEX suppressions_project_mode_email \(project_id=\? AND mode=\? AND email=\?\)/,
    detail,
  );
  t.notRegex(detail, /SCAN suppressions/);
});

test('findSuppressed ignores strings that are not addresses and returns an empty map for none', async (t) => {
  const ph = await startPosthorn(t);
  const { suppressions } = ph.server.services;
  t.is((await suppressions.findSuppressed(ph.owner.projectId, [])).size, 0);
  t.is((await suppressions.findSuppressed(ph.owner.projectId, ['not an address'])).size, 0);
});

test('addWithin commits with the caller’s transaction and disappears when it rolls back', async (t) => {
  const ph = await startPosthorn(t);
  const { suppressions } = ph.server.services;
  const projectId = ph.owner.projectId;
  const db = ph.server.kernel.db;
  await db.transaction().execute(async (trx) => {
    const record = await suppressions.addWithin(trx, {
      projectId,
      email: 'Bounced@Example.com',
      reason: 'hard_bounce',
      messageId: 'msg_1',
    });
    t.like(record, { email: 'bounced@example.com', source: 'bounce', message_id: 'msg_1' });
  });
  await t.throwsAsync(
    db.transaction().execute(async (trx) => {
      await suppressions.addWithin(trx, {
        projectId,
        email: 'complainer@example.com',
        reason: 'spam_complaint',
      });
      throw new Error('delivery step failed');
    }),
    { message: 'delivery step failed' },
  );
  const hits = await suppressions.findSuppressed(projectId, [
    'bounced@example.com',
    'complainer@example.com',
  ]);
  t.deepEqual([...hits.keys()], ['bounced@example.com']);
  const complaint = await suppressions.add({
    projectId,
    email: 'complainer@example.com',
    reason: 'spam_complaint',
  });
  t.is(complaint.source, 'complaint');
});

import test from 'ava';
import { startPosthorn } from '../helpers/server.js';

test('findSuppressed answers 300 addresses with one query over the (project_id, mode, email) index', async (t) => {
  const ph = await startPosthorn(t);
  const { suppressions } = ph.server.services;
  const projectId = ph.owner.projectId;
  for (let i = 0; i < 300; i += 30) {
    await suppressions.add({ projectId, email: `user${i}@example.com`, reason: 'hard_bounce' });
  }
  const addresses = Array.from({ length: 300 }, (_, i) => `User${i}@Example.com`);

  const sqlite = ph.server.kernel.store.sqlite;
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
  const params = [projectId, 'live', ...addresses.map((a) => a.toLowerCase())];
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

/**
 * The delivery queue's storage port (delivery/queue/store.ts) against both adapters: SQLite's
 * prepared statements and PostgreSQL's queries, on a real migrated store of each.
 */
import test from 'ava';
import { createDeliveryStore, type DeliveryStore } from '../../../src/delivery/queue/store.js';
import type { Store } from '../../../src/platform/db/database.js';
import { ENGINES, migratedStore, seedProject } from '../../helpers/engines.js';

const T0 = 1_900_000_000_000;
const LEASE = 60_000;

/** A project with `jobs` queued live jobs (one message each, two recipients at example.net), due at T0. */
async function seed(store: Store, jobs: number): Promise<void> {
  const { db } = store;
  await seedProject(db, T0);
  for (let i = 0; i < jobs; i++) {
    const n = String(i).padStart(4, '0');
    await db
      .insertInto('messages')
      .values({
        id: `msg_${n}`,
        project_id: 'prj_1',
        api_key_id: null,
        mode: 'live',
        traffic: 'transactional',
        status: 'queued',
        from_header: 'a@example.com',
        from_email: 'a@example.com',
        from_domain: 'example.com',
        reply_to: null,
        subject: `s${n}`,
        headers: '{}',
        tags: '{}',
        template_id: null,
        template_version: null,
        variables: null,
        send_at: null,
        created_at: T0,
        updated_at: T0,
      })
      .execute();
    await db
      .insertInto('message_recipients')
      .values(
        ['rcp_b', 'rcp_a'].map((prefix) => ({
          id: `${prefix}${n}`,
          message_id: `msg_${n}`,
          project_id: 'prj_1',
          kind: 'to' as const,
          email: `${prefix}${n}@example.net`,
          display: `${prefix}${n}@example.net`,
          domain: 'example.net',
          status: 'queued' as const,
          attempts: 0,
          smtp_code: null,
          smtp_reply: null,
          bounce_category: null,
          delivered_at: null,
          updated_at: T0,
        })),
      )
      .execute();
    await db
      .insertInto('delivery_jobs')
      .values({
        id: `job_${n}`,
        message_id: `msg_${n}`,
        project_id: 'prj_1',
        domain: 'example.net',
        traffic: 'transactional',
        mode: 'live',
        state: 'queued',
        lane: 'default',
        due_at: T0 + i,
        locked_until: null,
        attempts: 0,
        last_error: null,
        created_at: T0,
        updated_at: T0,
      })
      .execute();
  }
}

async function queueStore(
  t: Parameters<typeof migratedStore>[0],
  engine: (typeof ENGINES)[number],
  jobs: number,
) {
  const store = await migratedStore(t, engine);
  await seed(store, jobs);
  return { store, delivery: createDeliveryStore(store) };
}

/** The job's row (with PostgreSQL's lease token, which SQLite's rows do not have). */
const job = (store: Store, id: string) =>
  store.db.selectFrom('delivery_jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow() as Promise<
    Record<string, unknown>
  >;

const ids = (jobs: readonly { id: string }[]) => jobs.map((j) => j.id).sort();

/** Records `jobs` as delivered in one transaction, as the outcome writer does. */
async function finish(
  store: Store,
  delivery: DeliveryStore,
  jobs: Parameters<DeliveryStore['heldLeases']>[1],
) {
  const trx = await store.db.startTransaction().execute();
  const held = await delivery.heldLeases(trx, jobs);
  const writes = delivery.writesIn(trx);
  for (const j of jobs) if (held.has(j.id)) await writes.finishJob(j, 'default', null, T0 + 10);
  await writes.flush();
  await trx.commit().execute();
  return held;
}

for (const engine of ENGINES) {
  test(`${engine}: a claim leases due jobs oldest first, and a second claim finds them taken until the lease runs out`, async (t) => {
    const { delivery } = await queueStore(t, engine, 5);
    const first = await delivery.claim('transactional', 'default', 3, T0 + 100, LEASE);
    t.deepEqual(ids(first), ['job_0000', 'job_0001', 'job_0002']);
    t.deepEqual(ids(await delivery.claim('transactional', 'default', 10, T0 + 100, LEASE)), [
      'job_0003',
      'job_0004',
    ]);
    t.deepEqual(await delivery.claim('transactional', 'default', 10, T0 + 200, LEASE), []);
    const again = await delivery.claim('transactional', 'default', 10, T0 + 100 + LEASE, LEASE);
    t.is(again.length, 5, 'every lease ran out: the jobs are due again');
    t.deepEqual(
      await delivery.claim('transactional', 'other', 10, T0 + 100 + 2 * LEASE, LEASE),
      [],
      'another lane claims none',
    );
  });

  test(`${engine}: claims racing each other never lease one job twice`, async (t) => {
    const { delivery } = await queueStore(t, engine, 40);
    const claims = await Promise.all(
      Array.from({ length: 8 }, () => delivery.claim('transactional', 'default', 7, T0 + 100, LEASE)),
    );
    const ids = claims.flat().map((j) => j.id);
    t.is(new Set(ids).size, ids.length, 'no job in two claims');
    t.is(ids.length, 40, 'and all of them claimed');
  });

  test(`${engine}: a finished job is never claimed again; a released one is, with its lane`, async (t) => {
    const { store, delivery } = await queueStore(t, engine, 2);
    const [a, b] = await delivery.claim('transactional', 'default', 2, T0 + 100, LEASE);
    if (!a || !b) throw new Error('two jobs expected');
    await finish(store, delivery, [a]);
    t.like(await job(store, a.id), { state: 'done', attempts: 1, locked_until: null });
    await delivery.release([{ id: b.id, lease: b.lease, lane: 'default' }], T0 + 150, T0 + 150);
    t.like(await job(store, b.id), { state: 'queued', due_at: T0 + 150, locked_until: null, attempts: 0 });
    t.deepEqual(
      (await delivery.claim('transactional', 'default', 10, T0 + 200, LEASE)).map((j) => j.id),
      [b.id],
    );
  });

  test(`${engine}: a retried job is due at its next attempt with the attempt counted`, async (t) => {
    const { store, delivery } = await queueStore(t, engine, 1);
    const [claimed] = await delivery.claim('transactional', 'default', 1, T0 + 100, LEASE);
    if (!claimed) throw new Error('a job expected');
    const trx = await store.db.startTransaction().execute();
    const writes = delivery.writesIn(trx);
    await writes.recipient(
      {
        id: 'rcp_a0000',
        status: 'deferred',
        smtpCode: 451,
        smtpReply: '451 later',
        category: 'temporary',
        deliveredAt: null,
      },
      T0 + 110,
    );
    await writes.rescheduleJob(claimed, T0 + 5_000, 'default', '451 later', T0 + 110);
    t.deepEqual(
      await writes.statusCounts('msg_0000'),
      { deferred: 1, queued: 1 },
      'a read sees the writes before it',
    );
    await writes.setMessageStatus('msg_0000', 'deferred', T0 + 110);
    await writes.flush();
    await trx.commit().execute();
    t.like(await job(store, claimed.id), {
      state: 'queued',
      due_at: T0 + 5_000,
      attempts: 1,
      last_error: '451 later',
    });
    t.deepEqual(await delivery.claim('transactional', 'default', 1, T0 + 4_999, LEASE), []);
    t.is((await delivery.claim('transactional', 'default', 1, T0 + 5_000, LEASE)).length, 1);
    const message = await store.db
      .selectFrom('messages')
      .select('status')
      .where('id', '=', 'msg_0000')
      .executeTakeFirst();
    t.is(message?.status, 'deferred');
  });

  test(`${engine}: a job loads with its message and its recipients in the order they were submitted`, async (t) => {
    const { delivery } = await queueStore(t, engine, 1);
    const { message, recipients } = await delivery.load('msg_0000');
    t.like(message, { id: 'msg_0000', project_id: 'prj_1', subject: 's0000', status: 'queued' });
    t.deepEqual(
      recipients.map((r) => [r.id, r.status, r.attempts]),
      [
        ['rcp_a0000', 'queued', 0],
        ['rcp_b0000', 'queued', 0],
      ],
    );
    t.deepEqual(await delivery.load('msg_none'), { message: undefined, recipients: [] });
  });
}

test('postgresql: a job loads with the rendering made at admission, its bytes whole, given to one of two loads', async (t) => {
  const { store, delivery } = await queueStore(t, 'postgresql', 2);
  const bytes = Buffer.from([0x44, 0x00, 0xff, 0x0d, 0x0a, 0x2e, 0x2e, 0x80, 0x0d, 0x0a]);
  await store.db
    .insertInto('message_raw')
    .values({ message_id: 'msg_0000', signing: 'rsa:s1', size: 9, bytes, created_at: T0 })
    .execute();
  const [first, second] = await Promise.all([delivery.load('msg_0000'), delivery.load('msg_0000')]);
  t.deepEqual(first.rendering, { signing: 'rsa:s1', size: 9, bytes });
  t.is(second.rendering, undefined, 'its bytes are released once sent: one job has them');
  t.deepEqual(second.recipients, first.recipients);
  t.false(Object.keys(first.message ?? {}).some((key) => key.startsWith('raw_')));
  t.is((await delivery.load('msg_0001')).rendering, undefined, 'none stored');
});

test('postgresql: a node whose lease ran out cannot renew, release or record the job another claim holds now', async (t) => {
  const { store, delivery } = await queueStore(t, 'postgresql', 1);
  const [stale] = await delivery.claim('transactional', 'default', 1, T0 + 100, LEASE);
  const [current] = await delivery.claim('transactional', 'default', 1, T0 + 100 + LEASE, LEASE);
  if (!stale || !current) throw new Error('both claims expected');
  t.not(stale.lease, current.lease, 'each claim has a token of its own');
  await delivery.renew([stale], T0 + 10 * LEASE);
  t.is((await job(store, stale.id)).locked_until, T0 + 100 + 2 * LEASE, 'the stale renewal changed nothing');
  await delivery.release([{ id: stale.id, lease: stale.lease, lane: 'default' }], T0, T0);
  t.is((await job(store, stale.id)).lease, current.lease, 'the stale release changed nothing');
  t.deepEqual([...(await finish(store, delivery, [stale]))], [], 'the stale outcome is not held');
  t.like(await job(store, stale.id), { state: 'queued', attempts: 0 });
  t.deepEqual([...(await finish(store, delivery, [current]))], [current.id]);
  t.like(await job(store, current.id), { state: 'done', attempts: 1, lease: null });
});

test('postgresql: two stores on one database (two nodes) claim disjoint jobs', async (t) => {
  const { store, delivery } = await queueStore(t, 'postgresql', 60);
  const other = createDeliveryStore(
    await migratedStore(t, 'postgresql', { url: (store as { url?: string }).url }),
  );
  const taken: string[] = [];
  for (let round = 0; round < 10; round++) {
    const [a, b] = await Promise.all([
      delivery.claim('transactional', 'default', 4, T0 + 100, LEASE),
      other.claim('transactional', 'default', 4, T0 + 100, LEASE),
    ]);
    taken.push(...a.map((j) => j.id), ...b.map((j) => j.id));
  }
  t.is(new Set(taken).size, taken.length, 'no job leased by both nodes');
  t.is(taken.length, 60);
});

test('postgresql: a batch written as one statement records only the jobs whose lease it still holds, with their events', async (t) => {
  const { store, delivery } = await queueStore(t, 'postgresql', 2);
  // Claimed 100 ms apart, so that job_0000's lease runs out first.
  const [stale] = await delivery.claim('transactional', 'default', 1, T0 + 100, LEASE);
  const [kept] = await delivery.claim('transactional', 'default', 1, T0 + 200, LEASE);
  if (!stale || !kept || !delivery.writesAtOnce)
    throw new Error('two claimed jobs and the one-statement writes expected');
  // job_0000's lease runs out and another node claims it.
  const again = await delivery.claim('transactional', 'default', 2, T0 + 100 + LEASE, LEASE);
  t.deepEqual(ids(again), [stale.id]);
  const current = again[0];
  await store.db
    .insertInto('delivery_soft_bounces')
    .values(
      ['rcp_a0000', 'rcp_a0001'].map((r) => ({
        project_id: 'prj_1',
        email: `${r}@example.net`,
        count: 2,
        last_at: T0,
      })),
    )
    .execute();
  const writes = delivery.writesAtOnce();
  const events = [];
  for (const [j, n] of [
    [stale, '0000'],
    [kept, '0001'],
  ] as const) {
    for (const prefix of ['rcp_a', 'rcp_b']) {
      const reply = {
        id: `${prefix}${n}`,
        status: 'delivered' as const,
        smtpCode: 250,
        smtpReply: '250 ok',
        category: null,
      };
      await writes.recipient({ ...reply, deliveredAt: T0 + 110 }, T0 + 110);
      await writes.clearSoftBounce('prj_1', `${prefix}${n}@example.net`);
      events.push({
        id: `evt_${n}${prefix}`,
        project_id: 'prj_1',
        type: 'email.delivered',
        message_id: `msg_${n}`,
        recipient: `${prefix}${n}@example.net`,
        data: '{}',
        created_at: T0 + 110,
      });
    }
    await writes.finishJob(j, 'default', null, T0 + 110);
    await writes.setMessageStatus(`msg_${n}`, 'delivered', T0 + 110);
    await writes.attempt({
      jobId: j.id,
      messageId: `msg_${n}`,
      lane: 'default',
      mxHost: 'mx.example.net',
      tls: true,
      outcome: 'delivered',
      smtpCode: 250,
      smtpReply: '250 ok',
      startedAt: T0 + 100,
      durationMs: 10,
    });
  }
  await t.throwsAsync(
    async () => writes.statusCounts('msg_0000'),
    { message: /transaction/ },
    'a read has no transaction to read in',
  );
  const held = await writes.commitHeld([stale, kept], events);
  t.deepEqual([...held], [kept.id], 'the stale job is not held');
  t.like(await job(store, stale.id), { state: 'queued', attempts: 0, lease: current?.lease });
  t.like(await job(store, kept.id), { state: 'done', attempts: 1, lease: null });
  const messageStatus = async (id: string) =>
    (await store.db.selectFrom('messages').select('status').where('id', '=', id).executeTakeFirst())?.status;
  const recipientStatuses = async (id: string) =>
    (
      await store.db.selectFrom('message_recipients').select('status').where('message_id', '=', id).execute()
    ).map((r) => r.status);
  t.is(await messageStatus('msg_0000'), 'queued', "the stale job's message keeps its status");
  t.is(await messageStatus('msg_0001'), 'delivered');
  t.deepEqual(await recipientStatuses('msg_0000'), ['queued', 'queued']);
  t.deepEqual(await recipientStatuses('msg_0001'), ['delivered', 'delivered']);
  const logged = await store.db
    .selectFrom('events')
    .select(['message_id', 'recipient'])
    .orderBy('id')
    .execute();
  t.deepEqual(
    logged,
    [
      { message_id: 'msg_0001', recipient: 'rcp_a0001@example.net' },
      { message_id: 'msg_0001', recipient: 'rcp_b0001@example.net' },
    ],
    "only the held job's events, in the order given",
  );
  const attempts = await store.db.selectFrom('delivery_attempts').select('job_id').execute();
  t.deepEqual(
    attempts.map((a) => a.job_id),
    [kept.id],
  );
  const bounces = await store.db.selectFrom('delivery_soft_bounces').select('email').execute();
  t.deepEqual(
    bounces.map((b) => b.email),
    ['rcp_a0000@example.net'],
    "the stale job's soft-bounce count stays",
  );
});

/**
 * The webhook attempt queue's storage port (webhooks/store-queue.ts) against both adapters:
 * SQLite's (one node holds every lease) and PostgreSQL's (`SKIP LOCKED` claims with a lease token,
 * for dispatchers on several nodes), on a real migrated store of each.
 */
import test from 'ava';
import type { Store } from '../../src/platform/db/database.js';
import { recordOutcome } from '../../src/webhooks/attempt-outcome.js';
import type { WebhookResult } from '../../src/webhooks/sender.js';
import { type ClaimedAttempt, createWebhookStore, type WebhookStore } from '../../src/webhooks/store.js';
import { ENGINES, migratedStore, seedProject } from '../helpers/engines.js';

const T0 = 1_900_000_000_000;
const LEASE = 60_000;
const ALL = 1000;
const policy = { scheduleMs: [5000], disableAfterMs: 5 * 86_400_000, streakGapMs: 7000 };

/** An enabled endpoint `whe_1` with `count` messages, each with one attempt due at T0 + i. */
async function seed(store: Store, count: number): Promise<void> {
  const { db } = store;
  await seedProject(db, T0);
  await db
    .insertInto('webhook_endpoints')
    .values({
      id: 'whe_1',
      project_id: 'prj_1',
      mode: 'live',
      url: 'https://hooks.example.net/in',
      description: null,
      events: '["*"]',
      status: 'enabled',
      disabled_reason: null,
      secret_sealed: 'sealed',
      previous_secret_sealed: null,
      previous_secret_expires_at: null,
      failing_since: null,
      last_failed_at: null,
      created_at: T0,
      updated_at: T0,
    })
    .execute();
  for (let i = 0; i < count; i++) {
    const n = String(i).padStart(4, '0');
    await db
      .insertInto('webhook_messages')
      .values({
        id: `whm_${n}`,
        endpoint_id: 'whe_1',
        project_id: 'prj_1',
        event_id: `evt_${n}`,
        event_type: 'email.delivered',
        body: `{"n":${i}}`,
        created_at: T0,
      })
      .execute();
    await db
      .insertInto('webhook_attempts')
      .values({
        id: `whd_${n}`,
        message_id: `whm_${n}`,
        endpoint_id: 'whe_1',
        attempt: 1,
        trigger: 'event',
        replay_of: null,
        previous_attempt_id: null,
        state: 'pending',
        due_at: T0 + i,
        locked_until: null,
        url: null,
        requested_at: null,
        duration_ms: null,
        response_status: null,
        response_headers: null,
        response_body: null,
        error: null,
        created_at: T0,
      })
      .execute();
  }
}

async function queueStore(
  t: Parameters<typeof migratedStore>[0],
  engine: (typeof ENGINES)[number],
  count: number,
) {
  const store = await migratedStore(t, engine);
  await seed(store, count);
  return { store, webhooks: createWebhookStore(store.db, store.engine) };
}

const ids = (attempts: readonly { id: string }[]) => attempts.map((a) => a.id).sort();

/** An attempt's row (with PostgreSQL's lease token, which SQLite's rows do not have). */
const row = (store: Store, id: string) =>
  store.db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow() as Promise<Record<string, unknown>>;

const answer = (status: number, at: number): WebhookResult => ({
  requestedAt: at,
  durationMs: 5,
  status,
  headers: {},
  body: null,
  error: null,
});

async function record(
  store: Store,
  webhooks: WebhookStore,
  attempt: ClaimedAttempt,
  status: number,
  at: number,
) {
  const endpoint = await webhooks.endpointById(attempt.endpoint_id);
  if (!endpoint) throw new Error('endpoint expected');
  return recordOutcome({ db: store.db, store: webhooks, policy }, attempt, endpoint, answer(status, at));
}

for (const engine of ENGINES) {
  test(`${engine}: a claim leases due attempts oldest first with their bodies, and a second claim finds them taken until the lease runs out`, async (t) => {
    const { webhooks } = await queueStore(t, engine, 5);
    const first = await webhooks.claim('whe_1', T0 + 100, 3, T0 + 100 + LEASE, ALL);
    t.deepEqual(
      first.map((a) => [a.id, a.message_id, a.attempt, a.trigger, a.body]),
      [
        ['whd_0000', 'whm_0000', 1, 'event', '{"n":0}'],
        ['whd_0001', 'whm_0001', 1, 'event', '{"n":1}'],
        ['whd_0002', 'whm_0002', 1, 'event', '{"n":2}'],
      ],
    );
    t.deepEqual(ids(await webhooks.claim('whe_1', T0 + 100, 10, T0 + 100 + LEASE, ALL)), [
      'whd_0003',
      'whd_0004',
    ]);
    t.deepEqual(await webhooks.claim('whe_1', T0 + 200, 10, T0 + 200 + LEASE, ALL), []);
    t.is(await webhooks.nextWakeAt(), T0 + 100 + LEASE, 'the next thing to do is a lease running out');
    const again = await webhooks.claim('whe_1', T0 + 100 + LEASE, 10, T0 + 100 + 2 * LEASE, ALL);
    t.is(again.length, 5, 'every lease ran out: the attempts are due again');
    t.deepEqual(await webhooks.endpointsWithDueAttempts(T0 + 200 + LEASE, 10), [], 'none due while leased');
  });

  test(`${engine}: claims racing each other never lease one attempt twice`, async (t) => {
    const { webhooks } = await queueStore(t, engine, 40);
    const claims = await Promise.all(
      Array.from({ length: 8 }, () => webhooks.claim('whe_1', T0 + 100, 7, T0 + 100 + LEASE, ALL)),
    );
    const taken = claims.flat().map((a) => a.id);
    t.is(new Set(taken).size, taken.length, 'no attempt in two claims');
    t.is(taken.length, 40, 'and all of them claimed');
  });

  test(`${engine}: a recorded attempt is never claimed again, a released one is at once, and a failure queues its retry`, async (t) => {
    const { store, webhooks } = await queueStore(t, engine, 2);
    const [ok, failed] = await webhooks.claim('whe_1', T0 + 100, 2, T0 + 100 + LEASE, ALL);
    if (!ok || !failed) throw new Error('two attempts expected');
    t.is(await record(store, webhooks, ok, 200, T0 + 110), undefined);
    t.like(await row(store, ok.id), { state: 'succeeded', response_status: 200, locked_until: null });
    await record(store, webhooks, failed, 500, T0 + 120);
    t.like(await row(store, failed.id), { state: 'failed', response_status: 500, error: 'HTTP 500' });
    t.like(await webhooks.endpointById('whe_1'), { failing_since: T0 + 120, status: 'enabled' });
    const [retry] = await webhooks.claim('whe_1', T0 + 125 + 5000, 10, T0 + 125 + 5000 + LEASE, ALL);
    t.like(retry, { message_id: failed.message_id, attempt: 2, trigger: 'retry', body: failed.body });
    if (!retry) throw new Error('a retry expected');
    await webhooks.releaseLocks([retry]);
    t.deepEqual(ids(await webhooks.claim('whe_1', T0 + 6000, 10, T0 + 6000 + LEASE, ALL)), [retry.id]);
  });

  test(`${engine}: an attempt that was in flight to the old URL when the URL changed leaves the new URL's streak alone, and is retried`, async (t) => {
    const { store, webhooks } = await queueStore(t, engine, 3);
    const [failed, gone, ok] = await webhooks.claim('whe_1', T0 + 100, 3, T0 + 100 + LEASE, ALL);
    if (!failed || !gone || !ok) throw new Error('three attempts expected');
    const before = await webhooks.endpointById('whe_1');
    if (!before) throw new Error('endpoint expected');
    // The old URL had been failing for almost disable_after when the URL changed (the PATCH resets
    // the streak); the three attempts were sent to the old URL before the change.
    await store.db
      .updateTable('webhook_endpoints')
      .set({ url: 'https://hooks.example.net/new', failing_since: null, last_failed_at: null })
      .where('id', '=', 'whe_1')
      .execute();
    const sent = { ...before, failing_since: T0 - policy.disableAfterMs, last_failed_at: T0 };
    const outcome = (attempt: ClaimedAttempt, status: number, at: number) =>
      recordOutcome({ db: store.db, store: webhooks, policy }, attempt, sent, answer(status, at));
    t.is(await outcome(failed, 500, T0 + 110), undefined, "not disabled by the old URL's failure");
    t.is(await outcome(gone, 410, T0 + 120), undefined, 'nor by a 410 from the old URL');
    t.like(await webhooks.endpointById('whe_1'), {
      status: 'enabled',
      failing_since: null,
      last_failed_at: null,
    });
    t.like(await row(store, failed.id), { state: 'failed', url: 'https://hooks.example.net/in' });
    const retries = await webhooks.claim('whe_1', T0 + 200 + 5000, 10, T0 + 200 + 5000 + LEASE, ALL);
    t.deepEqual(
      retries.map((a) => [a.message_id, a.attempt]).sort(),
      [
        [failed.message_id, 2],
        [gone.message_id, 2],
      ],
      'both retried, to the new URL',
    );
    // A success from the old URL does not end a streak the new URL has started since.
    await store.db
      .updateTable('webhook_endpoints')
      .set({ failing_since: T0 + 150, last_failed_at: T0 + 150 })
      .where('id', '=', 'whe_1')
      .execute();
    await outcome(ok, 200, T0 + 160);
    t.like(await webhooks.endpointById('whe_1'), { failing_since: T0 + 150 });
  });
}

test('postgresql: a node whose lease ran out cannot release or record the attempt another claim holds now', async (t) => {
  const { store, webhooks } = await queueStore(t, 'postgresql', 1);
  const [stale] = await webhooks.claim('whe_1', T0 + 100, 1, T0 + 100 + LEASE, ALL);
  const [current] = await webhooks.claim('whe_1', T0 + 100 + LEASE, 1, T0 + 100 + 2 * LEASE, ALL);
  if (!stale || !current) throw new Error('both claims expected');
  t.is(stale.id, current.id);
  t.truthy(stale.lease);
  t.not(stale.lease, current.lease, 'each claim has a token of its own');
  await webhooks.releaseLocks([stale]);
  t.like(
    await row(store, stale.id),
    { lease: current.lease, locked_until: T0 + 100 + 2 * LEASE },
    'the stale release changed nothing',
  );
  // The late writer's failure is refused whole: no outcome, no failing streak, no retry.
  t.is(await record(store, webhooks, stale, 410, T0 + 100 + LEASE + 5), undefined);
  t.like(await row(store, stale.id), { state: 'pending', response_status: null, lease: current.lease });
  t.like(await webhooks.endpointById('whe_1'), { status: 'enabled', failing_since: null });
  const attempts = await store.db.selectFrom('webhook_attempts').select('id').execute();
  t.is(attempts.length, 1, 'no retry queued');
  t.is(await record(store, webhooks, current, 200, T0 + 100 + LEASE + 10), undefined);
  t.like(await row(store, current.id), { state: 'succeeded', response_status: 200 });
});

test('postgresql: the per-endpoint limit counts the leases of every node', async (t) => {
  const { store, webhooks } = await queueStore(t, 'postgresql', 10);
  const other = createWebhookStore(
    (await migratedStore(t, 'postgresql', { url: (store as { url?: string }).url })).db,
    'postgresql',
  );
  const [a, b] = await Promise.all([
    webhooks.claim('whe_1', T0 + 100, 3, T0 + 100 + LEASE, 4),
    other.claim('whe_1', T0 + 100, 3, T0 + 100 + LEASE, 4),
  ]);
  t.is(a.length + b.length, 4, 'four in flight on both nodes together');
  t.deepEqual(await other.claim('whe_1', T0 + 200, 3, T0 + 200 + LEASE, 4), []);
  const done = [...a, ...b][0];
  if (!done) throw new Error('an attempt expected');
  await record(store, webhooks, done, 200, T0 + 300);
  t.is(
    (await other.claim('whe_1', T0 + 400, 3, T0 + 400 + LEASE, 4)).length,
    1,
    'one finished, one more goes',
  );
  await store.db.updateTable('webhook_endpoints').set({ status: 'disabled' }).execute();
  t.deepEqual(
    await webhooks.claim('whe_1', T0 + 100 + LEASE, 10, T0 + 100 + 2 * LEASE, ALL),
    [],
    'a disabled endpoint is not claimed',
  );
});

test('postgresql: two stores on one database (two nodes) claim disjoint attempts', async (t) => {
  const { store, webhooks } = await queueStore(t, 'postgresql', 60);
  const other = createWebhookStore(
    (await migratedStore(t, 'postgresql', { url: (store as { url?: string }).url })).db,
    'postgresql',
  );
  const taken: string[] = [];
  for (let round = 0; round < 10; round++) {
    const [a, b] = await Promise.all([
      webhooks.claim('whe_1', T0 + 100, 4, T0 + 100 + LEASE, ALL),
      other.claim('whe_1', T0 + 100, 4, T0 + 100 + LEASE, ALL),
    ]);
    taken.push(...a.map((x) => x.id), ...b.map((x) => x.id));
  }
  t.is(new Set(taken).size, taken.length, 'no attempt leased by both nodes');
  t.is(taken.length, 60);
});

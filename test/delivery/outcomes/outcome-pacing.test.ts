/**
 * The outcome writer's group commit on a real SQLite file: outcomes that arrive one after another,
 * each on its own turn of the event loop, go into one transaction while the last batch is fresh.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import type { JobContext } from '../../../src/delivery/steps.js';
import { OutcomeWriter } from '../../../src/delivery/outcomes/outcome-writer.js';
import { createDeliveryStore } from '../../../src/delivery/queue/store.js';
import { retryPolicyFrom } from '../../../src/delivery/outcomes/retry-policy.js';
import { openStore } from '../../../src/platform/db/database.js';
import { migrateToLatest } from '../../../src/platform/db/migrate.js';
import { createLogger } from '../../../src/platform/log.js';

test('outcomes finishing on successive turns of the event loop share one transaction', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-outcome-pacing-'));
  const store = openStore(dir);
  t.teardown(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await migrateToLatest(store.db);
  let transactions = 0;
  const exec = store.sqlite.exec.bind(store.sqlite);
  store.sqlite.exec = (source: string) => {
    if (source === 'begin immediate') transactions += 1;
    return exec(source);
  };
  const writer = new OutcomeWriter({
    db: store.db,
    sqlite: store.sqlite,
    store: createDeliveryStore(store),
    events: {
      appendWithin: () => ({}) as never,
      appendInTransaction: () => ({}) as never,
      appendMany: async () => [],
      rowsOf: async () => [],
      notify: () => {},
    },
    suppressions: { addWithin: async () => undefined },
    retry: retryPolicyFrom({ retry_schedule: ['1m'], max_age: '1d' }),
    softBounceLimit: 3,
    log: createLogger('silent'),
  });
  // A job whose message is gone: its outcome is the job's end alone.
  const report = (id: string) => ({
    ctx: {
      job: { id, messageId: 'msg_gone', attempts: 0 },
      message: null,
      recipients: [],
    } as unknown as JobContext,
    result: { kind: 'per_recipient', outcomes: new Map() } as const,
    lane: 'default',
    startedAt: Date.now(),
  });

  await writer.record(report('job_first'));
  t.is(transactions, 1);
  const recorded: Promise<void>[] = [];
  for (let i = 0; i < 5; i++) {
    recorded.push(writer.record(report(`job_${i}`)));
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(recorded);
  // One more transaction for the five (two should the host stall past the pace); one each before.
  t.true(transactions <= 3, `${transactions} transactions`);
});

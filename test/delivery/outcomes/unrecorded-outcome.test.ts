import test from 'ava';
import { retryPolicyFrom } from '../../../src/delivery/outcomes/retry-policy.js';
import { newContext } from '../../../src/delivery/steps.js';
import type { ClaimedJob, MessageRow } from '../../../src/delivery/queue/store.js';
import { planUnrecorded } from '../../../src/delivery/outcomes/unrecorded-outcome.js';

const policy = retryPolicyFrom({ retry_schedule: ['1m', '5m'], max_age: '1h' });
const t0 = Date.parse('2030-01-01T00:00:00Z');
const minute = 60_000;

function context(attempts: number, sendAt: number | null) {
  const job: ClaimedJob = {
    id: 'job_1',
    lease: null,
    messageId: 'msg_1',
    projectId: 'prj_1',
    domain: 'example.net',
    traffic: 'transactional',
    mode: 'live',
    lane: 'default',
    attempts,
    createdAt: t0,
  };
  const ctx = newContext(job, null);
  ctx.message = { id: 'msg_1', project_id: 'prj_1', send_at: sendAt, created_at: t0 } as MessageRow;
  return ctx;
}

// Each case: attempts made before, send_at, minutes after acceptance, and the plan.
const cases: Array<[string, number, number | null, number, 'retry' | 'stop', number | null]> = [
  ['the first failure waits the first step', 0, null, 0, 'retry', 1],
  ['a later failure waits a later step', 3, null, 10, 'retry', 15],
  ['the last step is placed at the maximum age', 3, null, 58, 'retry', 60],
  ['at the maximum age it stops', 5, null, 60, 'stop', null],
  ['a scheduled send counts from its send_at', 0, t0 + 120 * minute, 121, 'retry', 122],
];

for (const [title, attempts, sendAt, after, kind, at] of cases) {
  test(`an unrecorded outcome: ${title}`, (t) => {
    const plan = planUnrecorded(
      policy,
      context(attempts, sendAt),
      new Error('disk I/O error'),
      t0 + after * minute,
    );
    t.is(plan.kind, kind);
    if (plan.kind === 'retry') t.is(plan.at, t0 + (at ?? 0) * minute);
    t.regex(plan.lastError, /^the outcome could not be recorded \(disk I\/O error\)/);
  });
}

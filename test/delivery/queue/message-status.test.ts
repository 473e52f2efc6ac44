import test from 'ava';
import { messageStatus, type RecipientCounts } from '../../../src/delivery/queue/message-status.js';
import type { MessageStatus } from '../../../src/platform/db/tables.js';

const cases: [RecipientCounts, MessageStatus][] = [
  [{ queued: 2 }, 'queued'],
  [{ queued: 1, delivered: 1 }, 'sending'],
  [{ deferred: 1, delivered: 1 }, 'deferred'],
  [{ deferred: 1 }, 'deferred'],
  [{ delivered: 3 }, 'delivered'],
  [{ delivered: 1, complained: 1 }, 'delivered'],
  [{ delivered: 1, bounced: 1 }, 'partially_delivered'],
  [{ delivered: 1, failed: 1 }, 'partially_delivered'],
  [{ bounced: 2 }, 'bounced'],
  [{ bounced: 1, failed: 1 }, 'bounced'],
  [{ failed: 2 }, 'failed'],
  [{ suppressed: 1 }, 'suppressed'],
  [{ cancelled: 2 }, 'cancelled'],
];

for (const [counts, expected] of cases) {
  test(`recipients ${JSON.stringify(counts)} make the message ${expected}`, (t) => {
    t.is(messageStatus(counts), expected);
  });
}

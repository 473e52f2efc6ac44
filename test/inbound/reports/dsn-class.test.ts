/**
 * How a DSN recipient's Action and Status become the delivery engine's bounce class: `failed` is
 * final, but only a permanent (5.x.x) Status can be a hard bounce; a `failed` with a temporary
 * (4.x.x) Status is a soft bounce that counts toward repeated_soft_bounce.
 */
import test from 'ava';
import { countsAsSoftBounce, type DeliveryOutcome } from '../../../src/delivery/replies/bounce-classifier.js';
import type { DsnAction, DsnRecipient } from '../../../src/inbound/analysis/dsn.js';
import { dsnClass } from '../../../src/inbound/reports/feedback.js';

const entry = (action: DsnAction, status: string, diagnosticCode = ''): DsnRecipient => ({
  finalRecipient: 'bob@example.net',
  originalRecipient: null,
  action,
  status,
  diagnosticCode,
  remoteMta: null,
  willRetryUntil: null,
});

const cases: Array<[DsnAction, string, string, { outcome: DeliveryOutcome; hard: boolean; soft: boolean }]> =
  [
    ['failed', '5.1.1', 'smtp; 550 5.1.1 User unknown', { outcome: 'bounced', hard: true, soft: false }],
    ['failed', '5.0.0', '', { outcome: 'bounced', hard: true, soft: false }],
    ['failed', '5.2.2', 'smtp; 552 5.2.2 Mailbox full', { outcome: 'bounced', hard: false, soft: true }],
    // An MTA that gave up after its queue lifetime: the address may be fine.
    ['failed', '4.4.7', '', { outcome: 'bounced', hard: false, soft: true }],
    [
      'failed',
      '4.4.7',
      'X-Postfix; delivery temporarily suspended: connect to mx.example.net[192.0.2.1]:25: Connection timed out',
      { outcome: 'bounced', hard: false, soft: true },
    ],
    ['failed', '4.2.2', 'smtp; 452 4.2.2 Mailbox full', { outcome: 'bounced', hard: false, soft: true }],
    [
      'failed',
      '4.0.0',
      'smtp; 421 Service temporarily unavailable',
      { outcome: 'bounced', hard: false, soft: true },
    ],
    ['failed', '4.0.0', '', { outcome: 'bounced', hard: false, soft: true }],
    // A block caused by the sender (rate limits) never counts against the address.
    [
      'failed',
      '4.7.0',
      'smtp; 421 4.7.0 Try again later, closing connection. (rate limited)',
      { outcome: 'bounced', hard: false, soft: false },
    ],
    ['delayed', '4.2.2', 'smtp; 452 4.2.2 Mailbox full', { outcome: 'deferred', hard: false, soft: false }],
    ['delayed', '5.1.1', '', { outcome: 'deferred', hard: false, soft: false }],
  ];

for (const [action, status, diagnostic, expected] of cases) {
  test(`Action ${action} with Status ${status} ${diagnostic ? `(${diagnostic.slice(0, 30)}...)` : ''} is ${expected.outcome}${expected.hard ? ', hard' : ''}`, (t) => {
    const cls = dsnClass(entry(action, status, diagnostic));
    t.is(cls.outcome, expected.outcome);
    t.is(cls.hard, expected.hard);
    t.is(countsAsSoftBounce(cls), expected.soft);
    t.is(cls.status, status, 'the reported Status is kept');
  });
}

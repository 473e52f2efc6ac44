/**
 * What one event of the log adds to the reputation center: a delivery, a bounce (hard or not), a
 * deferral, a complaint, and whether the provider's reply was a reputation block or a rate limit
 * (bounce categories `spam_block` and `rate_limited`, delivery/replies/bounce-rules.ts). Pure: the
 * projector supplies the lane of events that do not carry one (asynchronous DSNs, complaints).
 */

/** The event types that move the reputation center. */
export const REPUTATION_EVENT_TYPES = [
  'email.delivered',
  'email.bounced',
  'email.delivery_delayed',
  'email.complained',
] as const;

const BLOCK_CATEGORIES: ReadonlySet<string> = new Set(['spam_block', 'rate_limited']);

export interface Counts {
  delivered: number;
  bounced: number;
  hard_bounced: number;
  deferred: number;
  complained: number;
  blocked: number;
}

export const COUNT_NAMES = [
  'delivered',
  'bounced',
  'hard_bounced',
  'deferred',
  'complained',
  'blocked',
] as const;

export const zeroCounts = (): Counts => ({
  delivered: 0,
  bounced: 0,
  hard_bounced: 0,
  deferred: 0,
  complained: 0,
  blocked: 0,
});

export interface Block {
  readonly at: number;
  readonly category: string;
  readonly response: string;
  readonly mx: string | null;
}

export interface Outcome {
  readonly counts: Counts;
  readonly block: Block | null;
}

type Data = Record<string, unknown>;
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const object = (value: unknown): Data => (value !== null && typeof value === 'object' ? (value as Data) : {});

/**
 * The domain of a From header (`Acme <hello@acme.test>` or `hello@acme.test`), lower case; '' when
 * there is none.
 */
export function fromDomain(from: unknown): string {
  const header = text(from) ?? '';
  const address = /<([^<>]*)>\s*$/.exec(header)?.[1] ?? header;
  const at = address.lastIndexOf('@');
  return at === -1
    ? ''
    : address
        .slice(at + 1)
        .trim()
        .toLowerCase()
        .replace(/\.$/, '');
}

/** The lane an event names (`data.lane`), if it names one. */
export function laneOfEvent(data: Data): string | null {
  return text(data.lane);
}

/** What `type` with `data`, appended at `at`, counts; null for an event the center ignores. */
export function outcomeOf(type: string, data: Data, at: number): Outcome | null {
  const counts = zeroCounts();
  let detail: Data = {};
  switch (type) {
    case 'email.delivered':
      counts.delivered = 1;
      return { counts, block: null };
    case 'email.complained':
      counts.complained = 1;
      return { counts, block: null };
    case 'email.bounced':
      detail = object(data.bounce);
      counts.bounced = 1;
      if (detail.type === 'hard') counts.hard_bounced = 1;
      break;
    case 'email.delivery_delayed':
      detail = object(data.delay);
      counts.deferred = 1;
      break;
    default:
      return null;
  }
  const category = text(detail.category);
  if (category === null || !BLOCK_CATEGORIES.has(category)) return { counts, block: null };
  counts.blocked = 1;
  return {
    counts,
    block: { at, category, response: text(detail.smtp_response) ?? '', mx: text(detail.mx_host) },
  };
}

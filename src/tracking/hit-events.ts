/**
 * The event and the stored row of one classified hit. `email.opened` and `email.clicked` carry,
 * beside DESIGN.md §4's `email_id`, `from`, `to`, `subject` and `tags`, the verdict (`machine`,
 * `machine_reason`: null for a person) and their own object (`open` or `click`: time, agent class,
 * image proxy, link). No client address goes into an event: events outlive the project's
 * tracking retention (docs/decisions/tracking.md).
 */
import type { MessageFacts } from '../emails/store-facts.js';
import type { NewEvent } from '../events/service.js';
import type { Verdict } from './classify/rules.js';
import type { NewHit } from './store.js';

export interface PendingHit {
  readonly kind: 'open' | 'click';
  readonly messageId: string;
  /** Clicks: the link's index, the message's count of tracked links, and the URL. */
  readonly index?: number;
  readonly count?: number;
  readonly url?: string;
  readonly at: number;
  readonly method: string;
  readonly userAgent: string | undefined;
  /** Untruncated; held in memory until the hit is classified, never stored. */
  readonly ip: string | null;
}

/**
 * The recipient a hit is counted for. A message is composed once for all its recipients, so its
 * tracking URLs name the message: an open of a message to several people is counted once, for
 * its first `to` recipient (docs/decisions/tracking.md).
 */
export function countedRecipient(facts: MessageFacts): string | null {
  return (facts.recipients.find((r) => r.kind === 'to') ?? facts.recipients[0])?.email ?? null;
}

export function hitEvent(hit: PendingHit, facts: MessageFacts, verdict: Verdict): NewEvent {
  const own =
    hit.kind === 'open'
      ? {
          open: {
            timestamp: new Date(hit.at).toISOString(),
            agent_class: verdict.agentClass,
            proxy: verdict.proxy,
          },
        }
      : {
          click: {
            link: hit.url,
            link_index: hit.index,
            timestamp: new Date(hit.at).toISOString(),
            agent_class: verdict.agentClass,
          },
        };
  return {
    projectId: facts.projectId,
    type: hit.kind === 'open' ? 'email.opened' : 'email.clicked',
    messageId: facts.id,
    recipient: countedRecipient(facts),
    at: hit.at,
    data: {
      email_id: facts.id,
      from: facts.from,
      to: facts.recipients.filter((r) => r.kind === 'to').map((r) => r.display),
      subject: facts.subject,
      tags: facts.tags,
      machine: verdict.machine,
      machine_reason: verdict.reason,
      ...own,
    },
  };
}

export function hitRow(
  hit: PendingHit,
  facts: MessageFacts,
  verdict: Verdict,
  ipPrefix: string | null,
  eventId: string,
): NewHit {
  return {
    project_id: facts.projectId,
    message_id: facts.id,
    recipient: countedRecipient(facts),
    kind: hit.kind,
    link_url: hit.url ?? null,
    link_index: hit.index ?? null,
    at: hit.at,
    method: hit.method,
    ip_prefix: ipPrefix,
    agent_class: verdict.agentClass,
    machine: verdict.machine ? 1 : 0,
    machine_reason: verdict.reason,
    proxy: verdict.proxy,
    event_id: eventId,
  };
}

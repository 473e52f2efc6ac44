/**
 * Unsubscription by a broadcast message's token: from its page (`GET`, as the spec has it), its
 * one-click POST (RFC 8058 §3.2, made by a mailbox provider), or a mail to its `mailto:` address
 * (the inbound listener). Each records one history entry naming how the contact left and which
 * broadcast's message they left through; the contact is then left out of every later broadcast.
 * A token that does not verify names nobody (404); one that verifies for a contact since removed
 * confirms they get nothing more (there is no one left to unsubscribe).
 */
import type { KeyObject } from 'node:crypto';
import type { AudienceService } from '../audiences/service.js';
import type { ContactRow } from '../audiences/store.js';
import type { BroadcastStore } from './store.js';
import { messageOfToken, tokenOfAddress } from './unsubscribe-token.js';

export type UnsubscribeSource = 'one_click' | 'link' | 'mailto';

export type TokenOutcome =
  | { readonly kind: 'invalid' }
  | { readonly kind: 'gone' }
  | {
      readonly kind: 'done';
      readonly contact: ContactRow;
      readonly audienceName: string | null;
      readonly sender: string | null;
    };

export function createUnsubscribe(deps: {
  readonly key: KeyObject;
  readonly store: BroadcastStore;
  readonly audiences: AudienceService;
}) {
  const { key, store, audiences } = deps;

  async function find(token: string) {
    const messageId = messageOfToken(key, token);
    if (messageId === undefined) return undefined;
    return (await store.ledgerOf(messageId)) ?? null;
  }

  async function outcome(contact: ContactRow | undefined, broadcastId: string): Promise<TokenOutcome> {
    if (!contact) return { kind: 'gone' };
    const audience = await audiences.audienceRow(contact.project_id, contact.audience_id);
    const broadcast = await store.byId(broadcastId);
    return {
      kind: 'done',
      contact,
      audienceName: audience?.name ?? null,
      sender: broadcast?.from_header ?? null,
    };
  }

  return {
    /** Unsubscribes the contact the token names. */
    async unsubscribe(
      token: string,
      source: UnsubscribeSource,
      detail: Record<string, string> | null,
    ): Promise<TokenOutcome> {
      const entry = await find(token);
      if (entry === undefined) return { kind: 'invalid' };
      if (entry === null) return { kind: 'gone' };
      const contact = await audiences.unsubscribe(entry.contact_id, {
        source,
        broadcastId: entry.broadcast_id,
        detail,
      });
      return outcome(contact, entry.broadcast_id);
    },

    /** Subscribes the contact again on their own request (the page's button). */
    async resubscribe(token: string, detail: Record<string, string> | null): Promise<TokenOutcome> {
      const entry = await find(token);
      if (entry === undefined) return { kind: 'invalid' };
      if (entry === null) return { kind: 'gone' };
      const contact = await audiences.resubscribe(entry.contact_id, {
        source: 'resubscribed from the unsubscribe page',
        broadcastId: entry.broadcast_id,
        detail,
      });
      return outcome(contact, entry.broadcast_id);
    },

    /** Whether an address is an unsubscribe address with a token that verifies (RCPT TO). */
    isAddress(address: string): boolean {
      const token = tokenOfAddress(address);
      return token !== undefined && messageOfToken(key, token) !== undefined;
    },

    /** A mail to an unsubscribe address arrived (the inbound listener accepted it). */
    async byMail(address: string, sender: string): Promise<TokenOutcome> {
      const token = tokenOfAddress(address);
      if (token === undefined) return { kind: 'invalid' };
      return this.unsubscribe(token, 'mailto', sender ? { sender } : null);
    },
  };
}

export type Unsubscribe = ReturnType<typeof createUnsubscribe>;

/**
 * What RCPT TO accepts. Posthorn takes only mail it will keep, so it never accepts something it
 * would later have to bounce (no backscatter):
 *
 * 1. an address with an inbound route on a domain the route's project has verified
 *    (`local_part@domain`, or any local part when the domain has a catch-all route);
 * 2. a VERP bounce address of a message Posthorn sent (a DSN or a complaint on its way back);
 * 3. the configured feedback-loop (complaint) address;
 * 4. the unsubscribe address of a broadcast message (its List-Unsubscribe `mailto:`), when the
 *    broadcasts capability vouches for it.
 *
 * Anything else is refused at RCPT with 550 5.1.1 by the listener. This module decides; it never
 * speaks SMTP and never writes anything.
 */
import { domainToASCII } from 'node:url';

/** One accepted recipient and what it is for; stored in the spool file with the message. */
export type InboundRecipient =
  | { readonly kind: 'route'; readonly address: string; readonly projectId: string; readonly routeId: string }
  | ({ readonly kind: 'bounce'; readonly address: string } & BounceTarget)
  | { readonly kind: 'complaint'; readonly address: string }
  | { readonly kind: 'unsubscribe'; readonly address: string };

/**
 * A message Posthorn sent, as its VERP Return-Path names it: the recipients of that transaction
 * (one, or those of one domain when the transaction carried several).
 */
export interface BounceTarget {
  readonly projectId: string;
  readonly messageId: string;
  readonly recipients: ReadonlyArray<{ readonly id: string; readonly email: string }>;
}

/** What the recipient check needs from other capabilities (wired in services.ts). */
export interface RecipientPorts {
  /** The route serving `local@domain` (exact local part first, then the catch-all). */
  findRoute(
    domain: string,
    local: string,
  ): Promise<{ id: string; projectId: string; domainId: string } | undefined>;
  /** True while the domain is a verified domain of the project. */
  isVerifiedDomain(projectId: string, domainId: string): Promise<boolean>;
  /** The sent message a VERP bounce address belongs to, or undefined when it is none of ours. */
  bounceTarget(address: string): Promise<BounceTarget | undefined>;
  /** True for a broadcast message's unsubscribe address whose token verifies (broadcasts). */
  isUnsubscribeAddress?(address: string): boolean;
}

export type RecipientCheck = (address: string) => Promise<InboundRecipient | undefined>;

/** Splits and normalizes an address: local part lower-cased, domain lower-case punycode. */
export function splitAddress(address: string): { local: string; domain: string } | undefined {
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return undefined;
  const domain = domainToASCII(address.slice(at + 1).replace(/\.$/, '')).toLowerCase();
  if (domain === '') return undefined;
  return { local: address.slice(0, at).toLowerCase(), domain };
}

export function createRecipientCheck(ports: RecipientPorts, complaintAddress: string): RecipientCheck {
  const complaint = splitAddress(complaintAddress);
  return async (address) => {
    const parts = splitAddress(address);
    if (parts === undefined) return undefined;
    const normalized = `${parts.local}@${parts.domain}`;
    if (complaint && parts.local === complaint.local && parts.domain === complaint.domain) {
      return { kind: 'complaint', address: normalized };
    }
    if (ports.isUnsubscribeAddress?.(normalized)) return { kind: 'unsubscribe', address: normalized };
    const route = await ports.findRoute(parts.domain, parts.local);
    if (route && (await ports.isVerifiedDomain(route.projectId, route.domainId))) {
      return { kind: 'route', address: normalized, projectId: route.projectId, routeId: route.id };
    }
    const target = await ports.bounceTarget(address);
    if (target) return { kind: 'bounce', address: normalized, ...target };
    return undefined;
  };
}

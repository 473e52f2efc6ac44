/**
 * Is a hit a person's or a machine's? Each open and each click goes through the rules below in
 * order; the first that matches decides, and names its reason (`machine_reason` of the event).
 * Pure: the recorder (recorder.ts) gathers the facts, including the other clicks of the message
 * around the same moment. The rules and their sources are in docs/decisions/tracking.md.
 *
 * Opens:
 * 1. `HEAD`: only fetches the headers, as link checkers and pre-fetchers do (`head_request`).
 * 2. No user agent (`no_user_agent`).
 * 3. Apple Mail Privacy Protection: its bare `Mozilla/5.0` agent, or a fetch from Apple's network
 *    by no browser or mail client (`apple_mpp`). It fetches every image of every message.
 * 4. Gmail's and Yahoo's image proxies hide the reader but fetch when the reader opens: human,
 *    with the proxy named.
 * 5. A security gateway's agent or any robot's (`bot_agent`), or a security gateway's network
 *    (`security_gateway`).
 * 6. Within `scanner_window` of the MX accepting the message, or before (`soon_after_delivery`).
 * Clicks: 1, 2 and 5 as for opens, then 6, then:
 * 7. Every tracked link of the message (two or more) followed with GET within one second (`all_links_at_once`).
 */
import { type AgentClass, agentClass } from './agents.js';
import { isAppleNetwork, isSecurityGateway } from './networks.js';

export type MachineReason =
  | 'head_request'
  | 'no_user_agent'
  | 'apple_mpp'
  | 'bot_agent'
  | 'security_gateway'
  | 'soon_after_delivery'
  | 'all_links_at_once';

export type ImageProxy = 'apple' | 'gmail' | 'yahoo';

export interface HitFacts {
  readonly kind: 'open' | 'click';
  readonly method: string;
  readonly userAgent: string | undefined;
  /** The client address, untruncated (it is never stored). */
  readonly ip: string | null;
  readonly at: number;
  /** When the recipient's MX accepted the message, if it has. */
  readonly deliveredAt: number | null;
  /** Clicks: whether every tracked link of the message was followed within one second of this one. */
  readonly allLinksAtOnce?: boolean;
}

export interface Verdict {
  readonly machine: boolean;
  readonly reason: MachineReason | null;
  readonly agentClass: AgentClass;
  readonly proxy: ImageProxy | null;
}

const PEOPLE = new Set<AgentClass>(['browser', 'mail_client']);

/** @example classify({ kind: 'open', method: 'GET', userAgent: 'Mozilla/5.0', ip: null, at, deliveredAt: null }, 3000).reason // 'apple_mpp' */
export function classify(hit: HitFacts, scannerWindowMs: number): Verdict {
  const cls = agentClass(hit.userAgent);
  const machine = (reason: MachineReason, proxy: ImageProxy | null = null): Verdict => ({
    machine: true,
    reason,
    agentClass: cls,
    proxy,
  });
  if (hit.method === 'HEAD') return machine('head_request');
  if (cls === 'none') return machine('no_user_agent');
  let proxy: ImageProxy | null = null;
  if (hit.kind === 'open') {
    if (cls === 'apple_mail_proxy' || (isAppleNetwork(hit.ip) && !PEOPLE.has(cls)))
      return machine('apple_mpp', 'apple');
    if (cls === 'gmail_image_proxy') proxy = 'gmail';
    if (cls === 'yahoo_mail_proxy') proxy = 'yahoo';
  }
  if (proxy === null && (cls === 'security_scanner' || cls === 'bot' || cls === 'apple_mail_proxy'))
    return machine('bot_agent');
  if (isSecurityGateway(hit.ip)) return machine('security_gateway', proxy);
  // A hit before the acceptance was recorded (a gateway scanning while the MX holds DATA) counts too.
  if (hit.deliveredAt !== null && hit.at - hit.deliveredAt < scannerWindowMs)
    return machine('soon_after_delivery', proxy);
  if (hit.kind === 'click' && hit.allLinksAtOnce === true) return machine('all_links_at_once');
  return { machine: false, reason: null, agentClass: cls, proxy };
}

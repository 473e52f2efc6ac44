/**
 * The List-Unsubscribe step of a broadcast message: its one-click URL and its mailto address
 * (RFC 2369 §3.2), and `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058 §3.1) when
 * the URL is HTTPS, as RFC 8058 requires (a server whose `server.public_url` is plain HTTP sends
 * the first header only). They are written into the message's headers at admission, so the
 * composer puts them in the message and the DKIM signature covers them (dkim/sign-worker.ts
 * lists both in h=, RFC 8058 §4).
 */
import type { KeyObject } from 'node:crypto';
import { MAILTO_PREFIX, unsubscribeToken } from './unsubscribe-token.js';

export interface MessageLinks {
  /** `https://.../v1/unsubscribe/<token>`: the visible link, the one-click POST and the page. */
  readonly url: string;
  /** `mailto:u+<token>@<bounce host>?subject=unsubscribe`. */
  readonly mailto: string;
}

export interface UnsubscribeLinks {
  /** The links of one broadcast message, sent from `fromDomain`. */
  of(messageId: string, fromDomain: string): MessageLinks;
}

export function unsubscribeLinks(options: {
  readonly key: KeyObject;
  /** `server.public_url`, where recipients reach this server. */
  readonly publicUrl: string;
  /** `delivery.bounce_subdomain`: the unsubscribe address lives beside the VERP bounces. */
  readonly bounceSubdomain: string;
}): UnsubscribeLinks {
  const base = options.publicUrl.replace(/\/+$/, '');
  return {
    of(messageId, fromDomain) {
      const token = unsubscribeToken(options.key, messageId);
      return {
        url: `${base}/v1/unsubscribe/${token}`,
        mailto: `mailto:${MAILTO_PREFIX}${token}@${options.bounceSubdomain}.${fromDomain}?subject=unsubscribe`,
      };
    },
  };
}

/** The message's RFC 2369 / RFC 8058 headers. */
export function unsubscribeHeaders(links: MessageLinks): Record<string, string> {
  const headers: Record<string, string> = { 'List-Unsubscribe': `<${links.url}>, <${links.mailto}>` };
  if (links.url.startsWith('https://')) headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  return headers;
}

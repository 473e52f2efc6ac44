/**
 * The mail a person receives when an authentication detail of their account changes (ASVS 2.2.3):
 * a password set or changed, two-factor turned on or off, by them or by an operator. It says what
 * changed, when, and from which kind of client and network, never a secret, and what to do if it
 * was not them. Sent through system mail like the sign-in codes.
 */
import { escapeHtml, fill, type Locale, RTL } from '../login/locales.js';
import { clientClass, networkOf } from './client.js';
import { NOTICE_TEXT, type NoticeKind } from './notice-text.js';

export type { NoticeKind } from './notice-text.js';

export interface NoticeFacts {
  readonly product: string;
  readonly email: string;
  readonly at: number;
  /** The client that made the change; null for an operator at the command line. */
  readonly client: { readonly ip: string | null; readonly userAgent: string | null } | null;
  /** The change ended the person's other sessions. */
  readonly othersEnded: boolean;
}

export function noticeMail(locale: Locale, kind: NoticeKind, facts: NoticeFacts) {
  const strings = NOTICE_TEXT[locale];
  const values = {
    product: facts.product,
    email: facts.email,
    time: new Date(facts.at).toISOString().slice(0, 16).replace('T', ' '),
    client: clientClass(facts.client?.userAgent ?? null) ?? '?',
    network: networkOf(facts.client?.ip ?? null) ?? '?',
  };
  const paragraphs = [
    fill(strings.what[kind], values),
    ...(facts.client ? [fill(strings.from, values)] : []),
    ...(facts.othersEnded ? [strings.othersEnded] : []),
    strings.notYou,
  ];
  const dir = RTL.has(locale) ? 'rtl' : 'ltr';
  return {
    subject: fill(strings.subject[kind], values),
    text: `${paragraphs.join('\n\n')}\n`,
    html:
      `<!doctype html><html lang="${locale}" dir="${dir}"><body>` +
      paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('') +
      '</body></html>',
  };
}

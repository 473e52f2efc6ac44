/**
 * The plain pages a person sees after following an unsubscribe link: what happened, to which
 * address and list, and a button that undoes it. No script, no external resource, nothing that
 * leaks the token in a Referer (the routes send `Referrer-Policy: no-referrer`).
 */
import { escapeHtml } from '../templates/render.js';
import type { TokenOutcome } from './unsubscribe.js';

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:34em;margin:4em auto;padding:0 1em;color:#222;line-height:1.5}
button{font:inherit;padding:.4em 1em;cursor:pointer}</style></head>
<body><h1>${escapeHtml(title)}</h1>
${body}
</body></html>
`;
}

function listOf(outcome: Extract<TokenOutcome, { kind: 'done' }>): string {
  const parts: string[] = [];
  if (outcome.audienceName) parts.push(`the list “${escapeHtml(outcome.audienceName)}”`);
  if (outcome.sender) parts.push(`from ${escapeHtml(outcome.sender)}`);
  return parts.length > 0 ? parts.join(' ') : 'this list';
}

/** After an unsubscription (or a link whose contact is gone). */
export function unsubscribedPage(outcome: TokenOutcome, token: string): string {
  if (outcome.kind !== 'done') {
    return page(
      'You are unsubscribed',
      '<p>This address is no longer on the list: it will receive no further mail from it.</p>',
    );
  }
  const address = escapeHtml(outcome.contact.email);
  return page(
    'You are unsubscribed',
    `<p><strong>${address}</strong> will receive no further mail of ${listOf(outcome)}.</p>
<p>Unsubscribed by mistake?</p>
<form method="post" action="${escapeHtml(token)}/resubscribe"><button type="submit">Subscribe again</button></form>`,
  );
}

/** After the page's button subscribed the contact again. */
export function resubscribedPage(outcome: TokenOutcome): string {
  if (outcome.kind !== 'done') {
    return page(
      'Not on the list',
      '<p>This address is no longer on the list, so it cannot be subscribed again here.</p>',
    );
  }
  return page(
    'You are subscribed again',
    `<p><strong>${escapeHtml(outcome.contact.email)}</strong> will receive mail of ${listOf(outcome)} again. Every message has a link to unsubscribe.</p>`,
  );
}

export function invalidPage(): string {
  return page(
    'This link is not valid',
    '<p>The unsubscribe link is incomplete or was changed. Open it again from the message, or use the unsubscribe option of your mail program.</p>',
  );
}

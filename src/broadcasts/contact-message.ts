/**
 * One broadcast message per contact: what the broadcast's messages share, worked out once
 * (`prepareBroadcast`), and the message of one contact (`contactDraft`), with its unsubscribe
 * link and headers and its personalised subject. The expansion (expansion.ts) queues them.
 *
 * It never writes: a contact whose values make the message unsendable is logged and left out.
 */
import type { Recipient } from '../audiences/store.js';
import type { Draft } from '../emails/model.js';
import { newId } from '../platform/ids.js';
import type { Logger } from '../platform/log.js';
import { type Mailbox, parseMailbox } from '../platform/mail-address.js';
import type { ParsedContent } from '../templates/parsed.js';
import { contactVariables, personalizeSubject, prepareContent } from './content.js';
import { senderOf } from './service.js';
import type { BroadcastRow } from './store.js';
import { type UnsubscribeLinks, unsubscribeHeaders } from './unsubscribe-headers.js';

/** What a broadcast's messages share, worked out once per broadcast. */
export interface Prepared {
  readonly parsed: ParsedContent;
  readonly from: Mailbox;
  readonly replyTo: readonly Mailbox[];
  readonly tags: Record<string, string>;
  readonly template: Draft['template'];
}

export interface ContactDraftDeps {
  readonly links: UnsubscribeLinks;
  readonly maxBodyBytes: number;
  readonly log: Logger;
}

export function prepareBroadcast(row: BroadcastRow): Prepared {
  return {
    parsed: prepareContent({ subject: row.subject ?? '', html: row.html, text: row.text }),
    from: senderOf(row),
    replyTo: (JSON.parse(row.reply_to ?? '[]') as string[]).flatMap((address) => {
      const parsed = parseMailbox(address);
      return parsed.ok ? [parsed.value] : [];
    }),
    tags: JSON.parse(row.tags) as Record<string, string>,
    template:
      row.template_id === null || row.template_version === null
        ? null
        : { id: row.template_id, version: row.template_version, variables: {} },
  };
}

/**
 * One contact's message, or undefined when its values make it unsendable (logged). `id` is the ID
 * it was prepared under ahead of the send time (preparation.ts), else a new one.
 */
export function contactDraft(
  deps: ContactDraftDeps,
  row: BroadcastRow,
  prepared: Prepared,
  contact: Recipient,
  id: string = newId('msg'),
): Draft | undefined {
  const links = deps.links.of(id, prepared.from.domain);
  const name = [contact.first_name, contact.last_name].filter(Boolean).join(' ');
  const named = name === '' ? undefined : parseMailbox(`${name} <${contact.email}>`);
  const mailbox = named?.ok ? named : parseMailbox(contact.email);
  if (!mailbox.ok) {
    deps.log.warn(
      { broadcast_id: row.id, contact_id: contact.id },
      'contact address cannot be sent to; skipped',
    );
    return undefined;
  }
  const variables = contactVariables({
    email: contact.email,
    first_name: contact.first_name,
    last_name: contact.last_name,
    metadata: JSON.parse(contact.metadata) as Record<string, string>,
    unsubscribe_url: links.url,
  });
  let subject: string;
  try {
    subject = personalizeSubject(prepared.parsed, variables, deps.maxBodyBytes);
  } catch (error) {
    deps.log.warn(
      { broadcast_id: row.id, contact_id: contact.id, err: error },
      "contact's values make the message unsendable; skipped",
    );
    return undefined;
  }
  return {
    id,
    projectId: row.project_id,
    keyId: null,
    mode: row.mode,
    traffic: 'marketing',
    broadcastId: row.id,
    from: prepared.from,
    replyTo: prepared.replyTo,
    recipients: [{ kind: 'to', mailbox: mailbox.value, email: contact.email }],
    subject,
    // Written at composition from the broadcast's content and these values (render-content.ts).
    html: null,
    text: null,
    personalization: variables,
    headers: unsubscribeHeaders(links),
    tags: prepared.tags,
    template: prepared.template,
    sendAt: null,
    trackOpens: null,
    trackClicks: null,
    idempotencyKey: null,
  };
}

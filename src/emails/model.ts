/**
 * The message model of the send path: a Draft is a validated, checked send request on its way to
 * the store; a MessageRef is what every response shows. Nothing here touches the database.
 */
import type {
  KeyMode,
  MessageStatus,
  RecipientKind,
  RecipientStatus,
  Traffic,
} from '../platform/db/tables.js';
import type { OAuthActor } from '../platform/http/principal.js';
import type { Mailbox } from '../platform/mail-address.js';

export interface DraftRecipient {
  readonly kind: RecipientKind;
  readonly mailbox: Mailbox;
  /** Normalized (platform/normalize-email.ts): what suppressions and throttles match. */
  readonly email: string;
}

export interface Draft {
  /** A message ID made beforehand (a broadcast names it in the message's unsubscribe link). */
  readonly id?: string;
  readonly projectId: string;
  /** The API key that sent it; null for Posthorn's own mail (system-mail) and a broadcast's messages. */
  readonly keyId: string | null;
  /** The channel (spec §2.5 `channel`): transactional unless a broadcast sends it. */
  readonly traffic?: Traffic;
  /** The broadcast that sent it (its `email.sent` event says so). */
  readonly broadcastId?: string;
  readonly mode: KeyMode;
  readonly from: Mailbox;
  readonly replyTo: readonly Mailbox[];
  /** Unique by normalized address; to before cc before bcc. */
  readonly recipients: readonly DraftRecipient[];
  readonly subject: string;
  readonly html: string | null;
  readonly text: string | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly tags: Readonly<Record<string, string>>;
  readonly template: {
    readonly id: string;
    readonly version: number;
    readonly variables: Record<string, string>;
  } | null;
  /**
   * A broadcast message's contact values, kept as the message's `variables`: such a message is
   * queued with no bodies (`html` and `text` null) and the render worker writes them at composition
   * from its broadcast's content and these values (broadcasts/render-content.ts).
   */
  readonly personalization?: Readonly<Record<string, string>>;
  readonly sendAt: number | null;
  readonly trackOpens: boolean | null;
  readonly trackClicks: boolean | null;
  readonly idempotencyKey: string | null;
  /**
   * Set for an agent send held for a person's approval (spec §3.2): the client that sent it. The
   * message is recorded `awaiting_approval` with no delivery jobs and no `email.sent`; approval
   * queues it (held.ts).
   */
  readonly heldFor?: OAuthActor;
}

/**
 * Whose messages a caller sees: one project's, of one key mode. A `ph_test_` key's messages and a
 * `ph_live_` key's are kept apart the way Stripe keeps test and live data apart: a message of the
 * other mode reads, lists and cancels exactly as one that does not exist. A KeyPrincipal is one.
 */
export interface MessageScope {
  readonly projectId: string;
  readonly mode: KeyMode;
}

export interface MessageRef {
  readonly id: string;
  readonly status: MessageStatus;
  readonly createdAt: number;
}

/** A message as `GET /v1/emails/{id}` shows it: its reference and each recipient's status. */
export interface MessageDetail extends MessageRef {
  readonly recipients: ReadonlyArray<{
    readonly email: string;
    readonly kind: RecipientKind;
    readonly status: RecipientStatus;
  }>;
}

/** Spec §2.2: the send response. */
export function refBody(ref: MessageRef): { id: string; status: string; created_at: string } {
  return { id: ref.id, status: ref.status, created_at: new Date(ref.createdAt).toISOString() };
}

/**
 * What `GET /v1/emails/{id}` returns: the send response (spec §2.2) and `recipients`, each as the
 * spec's dashboard message detail shows one (§2.5: `email`, `type`, `status`), in submission order.
 */
export function detailBody(detail: MessageDetail) {
  return {
    ...refBody(detail),
    recipients: detail.recipients.map((r) => ({ email: r.email, type: r.kind, status: r.status })),
  };
}

/**
 * Live or test: the mode of the key a message was sent with (`EmailService.messageMode`; the
 * SQLite adapters of the webhook fan-out and the reputation projection read it synchronously).
 */
export type MessageMode = (messageId: string) => KeyMode | undefined;

/** The modes of several messages at once (`EmailService.messageModes`); unknown ones are left out. */
export type MessageModes = (messageIds: readonly string[]) => Promise<Map<string, KeyMode>>;

/** Recipient domains in first-seen order: one delivery job each. */
export function recipientDomains(draft: Draft): string[] {
  return [...new Set(draft.recipients.map((r) => r.mailbox.domain))];
}

/** `messages.variables`: a broadcast message's contact values, a template send's variables, else null. */
export function variablesOf(draft: Draft): string | null {
  if (draft.personalization !== undefined) return JSON.stringify(draft.personalization);
  return draft.template ? JSON.stringify(draft.template.variables) : null;
}

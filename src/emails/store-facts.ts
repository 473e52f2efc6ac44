/**
 * What other capabilities may know about sent messages without reading their tables: the facts
 * an event about a message carries (DESIGN.md §4: `from`, `to`, `subject`, `tags`) and each
 * recipient's delivery time. Tracking reads them for every open and click it records, a batch of
 * messages at a time.
 */
import type { Db } from '../platform/db/database.js';
import type { KeyMode, RecipientKind } from '../platform/db/tables.js';

export interface MessageFacts {
  readonly id: string;
  readonly projectId: string;
  readonly mode: KeyMode;
  readonly from: string;
  readonly subject: string;
  /** The tags as stored (a JSON object). */
  readonly tags: Record<string, string>;
  /** Recipients in submission order: the address as submitted, its kind and delivery time. */
  readonly recipients: readonly {
    readonly email: string;
    readonly display: string;
    readonly kind: RecipientKind;
    readonly deliveredAt: number | null;
  }[];
}

function parseTags(text: string): Record<string, string> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** The facts of each message of `ids` the store holds (two queries, whatever the count). */
export async function messageFacts(db: Db, ids: readonly string[]): Promise<Map<string, MessageFacts>> {
  const found = new Map<string, MessageFacts>();
  if (ids.length === 0) return found;
  const messages = await db
    .selectFrom('messages')
    .select(['id', 'project_id', 'mode', 'from_header', 'subject', 'tags'])
    .where('id', 'in', ids)
    .execute();
  if (messages.length === 0) return found;
  const recipients = await db
    .selectFrom('message_recipients')
    .select(['id', 'message_id', 'email', 'display', 'kind', 'delivered_at'])
    .where(
      'message_id',
      'in',
      messages.map((m) => m.id),
    )
    .execute();
  recipients.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const byMessage = new Map<string, MessageFacts['recipients'][number][]>();
  for (const r of recipients) {
    let list = byMessage.get(r.message_id);
    if (!list) {
      list = [];
      byMessage.set(r.message_id, list);
    }
    list.push({ email: r.email, display: r.display, kind: r.kind, deliveredAt: r.delivered_at });
  }
  for (const m of messages) {
    found.set(m.id, {
      id: m.id,
      projectId: m.project_id,
      mode: m.mode,
      from: m.from_header,
      subject: m.subject,
      tags: parseTags(m.tags),
      recipients: byMessage.get(m.id) ?? [],
    });
  }
  return found;
}

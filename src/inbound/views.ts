/** Stored inbound rows → the API's JSON shapes (times as ISO 8601, JSON columns parsed). */
import type { z } from 'zod';
import type {
  attachmentRecord,
  inboundMessage,
  inboundSummary,
  routeRecord,
  threadMessage,
} from './schemas.js';
import type { AttachmentMeta, MessageRow, MessageSummaryRow, RouteRow } from './store.js';
import type { OutboundSummary } from './threads/outbound.js';

const iso = (ms: number) => new Date(ms).toISOString();
const list = (json: string) => JSON.parse(json) as string[];

export function routeView(row: RouteRow): z.infer<typeof routeRecord> {
  const local = row.local_part === '' ? null : row.local_part;
  return {
    id: row.id,
    domain_id: row.domain_id,
    domain: row.domain,
    local_part: local,
    address: `${local ?? '*'}@${row.domain}`,
    created_at: iso(row.created_at),
  };
}

export function attachmentView(row: AttachmentMeta): z.infer<typeof attachmentRecord> {
  return {
    id: row.id,
    filename: row.filename,
    content_type: row.content_type,
    size_bytes: row.size_bytes,
    content_id: row.content_id,
    disposition: row.disposition,
    sha256: row.sha256,
    scan_state: row.scan_state,
    scan_signature: row.scan_signature,
    download_url: row.scan_state === 'clean' ? `/v1/inbound/attachments/${row.id}/download` : null,
  };
}

export function summaryView(row: MessageSummaryRow, attachmentCount: number): z.infer<typeof inboundSummary> {
  return {
    id: row.id,
    thread_id: row.thread_id,
    from: row.from_header,
    to: list(row.to),
    cc: list(row.cc),
    subject: row.subject,
    attachment_count: attachmentCount,
    created_at: iso(row.created_at),
  };
}

export function messageView(
  row: MessageRow,
  attachments: readonly AttachmentMeta[],
): z.infer<typeof inboundMessage> {
  const headers = JSON.parse(row.headers) as Array<[string, string]>;
  return {
    ...summaryView(row, attachments.length),
    route_id: row.route_id,
    reply_to: list(row.reply_to),
    text: row.text,
    html: row.html,
    headers: headers.map(([name, value]) => ({ name, value })),
    date: row.date === null ? null : iso(row.date),
    message_id: row.message_id_header,
    in_reply_to: row.in_reply_to,
    references: list(row.references),
    envelope: {
      mail_from: row.mail_from,
      rcpt_to: list(row.rcpt_to),
      remote_ip: row.remote_ip,
      helo: row.helo,
      tls: row.tls === 1,
    },
    auth: JSON.parse(row.auth) as z.infer<typeof inboundMessage>['auth'],
    attachments: attachments.map(attachmentView),
    size_bytes: row.size_bytes,
    parse_error: row.parse_error,
    processing: row.processing_error === null ? 'complete' : 'failed',
    processing_error: row.processing_error,
  };
}

export function inboundThreadView(row: MessageSummaryRow): z.infer<typeof threadMessage> {
  return {
    direction: 'inbound',
    id: row.id,
    from: row.from_header,
    to: list(row.to),
    subject: row.subject,
    created_at: iso(row.created_at),
  };
}

export function outboundThreadView(summary: OutboundSummary): z.infer<typeof threadMessage> {
  return {
    direction: 'outbound',
    id: summary.id,
    from: summary.from,
    to: [...summary.to],
    subject: summary.subject,
    status: summary.status,
    created_at: iso(summary.createdAt),
  };
}

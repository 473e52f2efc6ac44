/**
 * What subscribers receive: the verification mail, the incident notice by mail (with its
 * unsubscribe link and RFC 8058 one-click headers), and the JSON bodies POSTed to webhook
 * subscribers (the challenge and the notice). Bodies are built from stored rows only, so a retry
 * sends the same bytes under the same `webhook-id`.
 */
import type { IncidentRow, UpdateRow } from '../incidents/store.js';
import { COMPONENT_NAMES } from '../model.js';
import type { StatusMail } from '../subscriptions/mail-port.js';
import { stateLabel } from '../views/rss.js';

const esc = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);

export function verificationMail(input: {
  readonly title: string;
  readonly to: string;
  readonly verifyUrl: string;
  readonly unsubscribeUrl: string;
  readonly expiresAt: number;
}): StatusMail {
  const until = new Date(input.expiresAt).toUTCString();
  return {
    kind: 'status_verification',
    to: input.to,
    subject: `Confirm your subscription to ${input.title} status updates`,
    text: [
      `Someone, probably you, asked to receive ${input.title} status updates at this address.`,
      '',
      `Confirm with this link (valid until ${until}):`,
      input.verifyUrl,
      '',
      'If it was not you, ignore this mail: nothing will be sent without the confirmation.',
      `To make sure: ${input.unsubscribeUrl}`,
    ].join('\n'),
    html: `<p>Someone, probably you, asked to receive ${esc(input.title)} status updates at this address.</p><p><a href="${esc(input.verifyUrl)}">Confirm the subscription</a> (valid until ${esc(until)}).</p><p>If it was not you, ignore this mail: nothing will be sent without the confirmation.</p>`,
  };
}

/** The webhook event type of an update: what happened to the incident or the window. */
export function noticeType(incident: IncidentRow, update: UpdateRow, first: boolean): string {
  if (incident.kind === 'maintenance') {
    if (first) return 'status.maintenance.scheduled';
    if (update.state === 'in_progress') return 'status.maintenance.started';
    if (update.state === 'completed') return 'status.maintenance.completed';
    if (update.state === 'cancelled') return 'status.maintenance.cancelled';
    return 'status.maintenance.updated';
  }
  if (first) return 'status.incident.created';
  if (update.state === 'resolved') return 'status.incident.resolved';
  return 'status.incident.updated';
}

const componentNames = (incident: IncidentRow) =>
  (JSON.parse(incident.components) as string[]).map(
    (id) => COMPONENT_NAMES[id as keyof typeof COMPONENT_NAMES] ?? id,
  );

export function noticeMail(input: {
  readonly title: string;
  readonly to: string;
  readonly incident: IncidentRow;
  readonly update: UpdateRow;
  readonly pageUrl: string;
  readonly unsubscribeUrl: string;
}): StatusMail {
  const { incident, update } = input;
  const label = stateLabel(update.state);
  const when = new Date(update.created_at).toUTCString();
  const affected = componentNames(incident).join(', ');
  return {
    kind: 'status_notice',
    to: input.to,
    subject: `[${input.title} status] ${label}: ${incident.title}`,
    text: [
      `${label}: ${incident.title}`,
      `Affects: ${affected}`,
      `${when}`,
      '',
      update.message,
      '',
      `Status page: ${input.pageUrl}`,
      `Unsubscribe: ${input.unsubscribeUrl}`,
    ].join('\n'),
    html: `<p><b>${esc(label)}: ${esc(incident.title)}</b><br>Affects: ${esc(affected)}<br>${esc(when)}</p><p>${esc(update.message).replace(/\n/g, '<br>')}</p><p><a href="${esc(input.pageUrl)}">Status page</a> · <a href="${esc(input.unsubscribeUrl)}">Unsubscribe</a></p>`,
    headers: {
      'List-Unsubscribe': `<${input.unsubscribeUrl}>`,
      // RFC 8058 §3.1: one-click (a POST to that URL) only with an https URI (server.public_url).
      ...(input.unsubscribeUrl.startsWith('https://')
        ? { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }
        : {}),
    },
  };
}

export function noticeBody(input: {
  readonly incident: IncidentRow;
  readonly update: UpdateRow;
  readonly first: boolean;
  readonly pageUrl: string;
  readonly unsubscribeUrl: string;
}): string {
  const { incident, update } = input;
  return JSON.stringify({
    type: noticeType(incident, update, input.first),
    created_at: new Date(update.created_at).toISOString(),
    data: {
      incident: {
        id: incident.id,
        kind: incident.kind,
        title: incident.title,
        impact: update.impact,
        state: update.state,
        components: JSON.parse(incident.components) as string[],
        automatic: incident.origin === 'automatic',
      },
      update: {
        id: update.id,
        state: update.state,
        message: update.message,
        created_at: new Date(update.created_at).toISOString(),
      },
      status_url: input.pageUrl,
      unsubscribe_url: input.unsubscribeUrl,
    },
  });
}

export function challengeBody(subscriptionId: string, challenge: string, at: number): string {
  return JSON.stringify({
    type: 'status.subscription.challenge',
    created_at: new Date(at).toISOString(),
    data: { subscription_id: subscriptionId, challenge },
  });
}

/** Whether a challenge response echoes it: `{"challenge": "<value>"}`, or the value alone as the body. */
export function echoes(body: string | null, challenge: string): boolean {
  if (body === null) return false;
  const text = body.trim();
  if (text === challenge) return true;
  try {
    const parsed = JSON.parse(text) as { challenge?: unknown };
    return parsed !== null && typeof parsed === 'object' && parsed.challenge === challenge;
  } catch {
    return false;
  }
}

/**
 * Sending to one subscriber, one request or one mail at a time, never throwing: the challenge of a
 * webhook subscription, and the notice of one update (a mail through the pipeline, or a POST
 * signed the Standard Webhooks way with the subscription's own secret, like endpoint deliveries).
 */
import { unseal } from '../../platform/crypto.js';
import { randomToken } from '../../platform/crypto.js';
import { VERSION } from '../../version.js';
import type { WebhookRequest, WebhookResult } from '../../webhooks/sender.js';
import { signatureHeader } from '../../webhooks/signing.js';
import type { IncidentRow, UpdateRow } from '../incidents/store.js';
import type { StatusMailer } from '../subscriptions/mail-port.js';
import { secretAad } from '../subscriptions/service.js';
import type { SubscriptionRow } from '../subscriptions/store.js';
import { challengeBody, echoes, noticeBody, noticeMail } from './content.js';

export type Deliver = (request: Omit<WebhookRequest, 'allowPrivate' | 'timeoutMs'>) => Promise<WebhookResult>;

export interface SendResult {
  readonly ok: boolean;
  readonly status: number | null;
  readonly error: string | null;
  readonly messageId?: string;
  /** The receiver said 410 Gone: the subscription is removed. */
  readonly gone?: boolean;
  readonly retryAfter?: string;
}

function signedHeaders(row: SubscriptionRow, masterKey: Buffer, webhookId: string, body: string) {
  const secret = unseal(masterKey, row.secret_sealed as string, secretAad(row.id));
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': `Posthorn-Status/${VERSION}`,
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader([secret], webhookId, timestamp, body),
  };
}

function outcome(result: WebhookResult): SendResult {
  if (result.status !== null && result.status >= 200 && result.status < 300)
    return { ok: true, status: result.status, error: null };
  return {
    ok: false,
    status: result.status,
    error: result.error ?? `HTTP ${result.status}`,
    gone: result.status === 410,
    ...(result.headers['retry-after'] ? { retryAfter: result.headers['retry-after'] } : {}),
  };
}

export async function sendChallenge(
  row: SubscriptionRow,
  deps: { masterKey: Buffer; deliver: Deliver; signal: AbortSignal },
): Promise<SendResult> {
  const challenge = randomToken(32);
  const body = challengeBody(row.id, challenge, Date.now());
  const result = await deps.deliver({
    url: row.destination,
    headers: signedHeaders(row, deps.masterKey, `${row.id}_challenge_${row.challenge_attempts + 1}`, body),
    body,
    signal: deps.signal,
  });
  const sent = outcome(result);
  if (!sent.ok) return sent;
  return echoes(result.body, challenge)
    ? sent
    : { ok: false, status: result.status, error: 'the response did not echo the challenge' };
}

export interface NoticeInput {
  readonly notificationId: string;
  readonly subscription: SubscriptionRow;
  readonly incident: IncidentRow;
  readonly update: UpdateRow;
  readonly first: boolean;
  readonly pageUrl: string;
  readonly unsubscribeUrl: string;
}

export async function sendNotice(
  input: NoticeInput,
  deps: { title: string; masterKey: Buffer; deliver: Deliver; mailer: StatusMailer; signal: AbortSignal },
): Promise<SendResult> {
  const { subscription } = input;
  if (subscription.channel === 'email') {
    try {
      const { id } = await deps.mailer.send(
        noticeMail({
          title: deps.title,
          to: subscription.destination,
          incident: input.incident,
          update: input.update,
          pageUrl: input.pageUrl,
          unsubscribeUrl: input.unsubscribeUrl,
        }),
      );
      return { ok: true, status: null, error: null, messageId: id };
    } catch (error) {
      return { ok: false, status: null, error: error instanceof Error ? error.message : String(error) };
    }
  }
  const body = noticeBody(input);
  const result = await deps.deliver({
    url: subscription.destination,
    headers: signedHeaders(subscription, deps.masterKey, input.notificationId, body),
    body,
    signal: deps.signal,
  });
  return outcome(result);
}

/**
 * Status subscriptions (spec §3.1: pending, verified, removed). An email subscription starts
 * pending and is mailed a verification link through the send pipeline; a webhook subscription
 * starts pending, gets a signing secret (shown once, in the 201) and is verified when its endpoint
 * echoes a challenge (challenge.ts). Either is removed by its unsubscribe link, which every notice
 * carries.
 *
 * A repeated subscription finds its row (one per channel and destination): a verified one is
 * returned as it is; a pending one is sent a new verification (the new link replaces the old); a
 * removed one starts over as a new pending subscription with new tokens. Nothing is stored for a
 * refused request.
 */
import { EventEmitter } from 'node:events';
import type { Config } from '../../platform/config/schema.js';
import { parseDuration } from '../../platform/config/duration.js';
import { seal } from '../../platform/crypto.js';
import { AppError, badRequest, notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import { normalizeAddress } from '../../platform/mail-address.js';
import { normalizeEmail } from '../../platform/normalize-email.js';
import { newSigningSecret } from '../../webhooks/signing.js';
import { verificationMail } from '../notices/content.js';
import type { StatusMailer } from './mail-port.js';
import { createSubscribeLimits } from './rate-limit.js';
import { createSubscriptionStore, type SubscriptionRow } from './store.js';
import {
  newNonce,
  newVerifyToken,
  tokenHash,
  UNSUBSCRIBE_PREFIX,
  unsubscribeTokens,
  VERIFY_PREFIX,
  wellFormed,
} from './tokens.js';
import { subscriptionView } from './view.js';

export const secretAad = (subscriptionId: string) => `status_subscription:${subscriptionId}`;

export interface SubscriptionDeps {
  readonly db: import('../../platform/db/database.js').Db;
  readonly config: Config;
  readonly masterKey: Buffer;
  readonly mailer: StatusMailer;
  /** The webhooks capability's target check (https://, no private targets). */
  readonly checkTargetUrl: (url: string) => string;
}

export function createSubscriptionService(deps: SubscriptionDeps) {
  const { config, masterKey } = deps;
  const store = createSubscriptionStore(deps.db);
  const limits = createSubscribeLimits(
    config.status.subscriptions_per_hour_per_ip,
    config.status.subscriptions_per_hour_per_destination,
  );
  const verifyTtlMs = parseDuration(config.status.verification_ttl);
  const unsubscribeToken = unsubscribeTokens(masterKey);
  const base = config.server.public_url.replace(/\/+$/, '');
  const challenges = new EventEmitter();

  function destinationOf(channel: 'email' | 'webhook', destination: string): { value: string; key: string } {
    if (channel === 'email') {
      const value = normalizeAddress(destination);
      const key = normalizeEmail(destination);
      if (value === undefined || key === undefined)
        throw badRequest('destination: is not an email address.', [
          { path: 'destination', message: 'is not an email address' },
        ]);
      return { value, key };
    }
    let url: string;
    try {
      url = deps.checkTargetUrl(destination);
    } catch (error) {
      if (error instanceof AppError)
        throw badRequest(error.message.replace(/^url:/, 'destination:'), [
          { path: 'destination', message: error.message.replace(/^url: /, '') },
        ]);
      throw error;
    }
    return { value: url, key: url };
  }

  async function sendVerification(row: SubscriptionRow, now: number): Promise<Partial<SubscriptionRow>> {
    const token = newVerifyToken();
    const patch = { verify_token_hash: tokenHash(token), verify_expires_at: now + verifyTtlMs };
    await deps.mailer.send(
      verificationMail({
        title: config.status.title,
        to: row.destination,
        verifyUrl: `${base}/v1/status/subscriptions/verify/${token}`,
        unsubscribeUrl: `${base}/v1/status/subscriptions/unsubscribe/${unsubscribeToken(row.id, row.unsubscribe_nonce)}`,
        expiresAt: patch.verify_expires_at,
      }),
    );
    return patch;
  }

  /** A new pending row's fields (or a removed row's, starting over). */
  function fresh(id: string, channel: 'email' | 'webhook', now: number) {
    const nonce = newNonce();
    const secret = channel === 'webhook' ? newSigningSecret() : undefined;
    const fields: Omit<SubscriptionRow, 'id' | 'channel' | 'destination' | 'destination_key' | 'created_at'> =
      {
        state: 'pending',
        verify_token_hash: null,
        verify_expires_at: null,
        unsubscribe_nonce: nonce,
        unsubscribe_token_hash: tokenHash(unsubscribeToken(id, nonce)),
        secret_sealed: secret === undefined ? null : seal(masterKey, secret, secretAad(id)),
        challenge_due_at: channel === 'webhook' ? now : null,
        challenge_attempts: 0,
        challenge_locked_until: null,
        last_error: null,
        updated_at: now,
        verified_at: null,
        removed_at: null,
      };
    return { fields, secret };
  }

  return {
    store,

    /**
     * `POST /v1/status/subscriptions`. Returns the subscription (with `secret` when a webhook
     * subscription was created or started over).
     */
    async subscribe(input: { channel: 'email' | 'webhook'; destination: string }, clientIp: string) {
      const { value, key } = destinationOf(input.channel, input.destination);
      const now = Date.now();
      limits.take(clientIp, `${input.channel}:${key}`, now);
      const existing = await store.byDestination(input.channel, key);
      if (existing?.state === 'verified') return subscriptionView(existing);
      if (existing?.state === 'pending') {
        const patch: Partial<SubscriptionRow> =
          input.channel === 'email'
            ? await sendVerification(existing, now)
            : { challenge_due_at: now, challenge_attempts: 0, challenge_locked_until: null };
        await store.update(existing.id, { ...patch, updated_at: now });
        if (input.channel === 'webhook') challenges.emit('due');
        return subscriptionView({ ...existing, ...patch });
      }
      const id = existing?.id ?? newId('sub', now);
      const { fields, secret } = fresh(id, input.channel, now);
      let row: SubscriptionRow = {
        id,
        channel: input.channel,
        destination: value,
        destination_key: key,
        created_at: existing?.created_at ?? now,
        ...fields,
      };
      if (existing) await store.update(id, row);
      else await store.insert(row);
      if (input.channel === 'email') {
        try {
          const patch = await sendVerification(row, now);
          await store.update(id, patch);
          row = { ...row, ...patch };
        } catch (error) {
          // Nothing is kept of a subscription whose verification could not be sent.
          if (existing) await store.update(id, existing);
          else await store.remove(id);
          throw new AppError('unavailable', 'The verification mail could not be sent; try again later.', {
            cause: error,
          });
        }
      } else challenges.emit('due');
      return { ...subscriptionView(row), ...(secret === undefined ? {} : { secret }) };
    },

    /** `GET .../verify/{token}`: a pending email subscription's link, once, before it expires. */
    async verify(token: string) {
      const row = wellFormed(token, VERIFY_PREFIX) ? await store.byVerifyHash(tokenHash(token)) : undefined;
      const now = Date.now();
      if (row?.state !== 'pending' || (row.verify_expires_at ?? 0) <= now)
        throw notFound('Verification token');
      const patch = {
        state: 'verified' as const,
        verify_token_hash: null,
        verify_expires_at: null,
        verified_at: now,
        updated_at: now,
      };
      await store.update(row.id, patch);
      return subscriptionView({ ...row, ...patch });
    },

    /** `GET .../unsubscribe/{token}`: removes the subscription; its notices still queued are dropped. */
    async unsubscribe(token: string) {
      const row = wellFormed(token, UNSUBSCRIBE_PREFIX)
        ? await store.byUnsubscribeHash(tokenHash(token))
        : undefined;
      if (!row || row.state === 'removed') throw notFound('Unsubscribe token');
      const now = Date.now();
      const patch: Partial<SubscriptionRow> = {
        state: 'removed',
        verify_token_hash: null,
        verify_expires_at: null,
        unsubscribe_token_hash: null,
        challenge_due_at: null,
        removed_at: now,
        updated_at: now,
      };
      await deps.db.transaction().execute(async (trx) => {
        await store.update(row.id, patch, trx);
        await trx
          .updateTable('status_notifications')
          .set({ state: 'dropped', last_error: 'unsubscribed', locked_until: null })
          .where('subscription_id', '=', row.id)
          .where('state', '=', 'pending')
          .execute();
      });
      return subscriptionView({ ...row, ...patch });
    },

    /** The unsubscribe link of a subscription, for its notices. */
    unsubscribeUrl: (row: SubscriptionRow) =>
      `${base}/v1/status/subscriptions/unsubscribe/${unsubscribeToken(row.id, row.unsubscribe_nonce)}`,

    /** The notifier listens here to send a new challenge without waiting. */
    onChallengeDue(listener: () => void): () => void {
      challenges.on('due', listener);
      return () => challenges.off('due', listener);
    },
  };
}

export type SubscriptionService = ReturnType<typeof createSubscriptionService>;

/**
 * Webhook endpoints and their delivery log: create (the `whsec_` secret is shown once, then kept
 * sealed with the master key because signing needs it back), list, get, update, delete, rotate
 * the secret (the previous one keeps signing for `webhooks.rotation_overlap`), list and inspect
 * attempts, and replay one (the stored body, byte for byte, as a new attempt). Sending is the
 * dispatcher's job; this service only queues and tells it to look.
 */
import { EventEmitter } from 'node:events';
import type { AuditService } from '../audit/service.js';
import type { MessageMode, MessageModes } from '../emails/model.js';
import type { Config } from '../platform/config/schema.js';
import { parseDuration } from '../platform/config/duration.js';
import { seal, unseal } from '../platform/crypto.js';
import { conflict, notFound } from '../platform/http/errors.js';
import { newId } from '../platform/ids.js';
import type { CreateEndpointRequest, UpdateEndpointRequest } from './schemas.js';
import { bodyMode, messageOfBody } from './message-mode.js';
import { newSigningSecret } from './signing.js';
import { type EndpointRow, type EndpointScope, pendingAttempt, type WebhookStore } from './store.js';
import type { WebhookRequest, WebhookSender } from './sender.js';
import { checkEndpointUrl } from './url-policy.js';
import { attemptView, endpointView } from './views.js';

/** The calling key: its project and mode scope every read and change (`EndpointScope`). */
export interface Actor extends EndpointScope {
  readonly organizationId: string;
  /** Who, for the audit log: `key:<id>`. */
  readonly name: string;
}

/** The AAD binding a sealed signing secret to its endpoint. */
export const secretAad = (endpointId: string) => `webhook_endpoint:${endpointId}`;

export function createWebhookService(deps: {
  store: WebhookStore;
  audit: AuditService;
  config: Config['webhooks'];
  masterKey: Buffer;
  /** The emails capability's `messageMode`, as the fan-out asks it. */
  messageMode: MessageMode;
  /** PostgreSQL: modes read through Kysely (messageMode is SQLite's synchronous port). */
  messageModes?: MessageModes;
  /** Sends one request (sender.ts), for `deliver`. */
  send: WebhookSender;
}) {
  const { store, audit, config, masterKey, messageMode, send } = deps;
  const timeoutMs = parseDuration(config.timeout);
  const policy = { allowHttp: config.allow_http, allowPrivate: config.allow_private_targets };
  const rotationOverlapMs = parseDuration(config.rotation_overlap);
  const queued = new EventEmitter();

  const find = async (scope: EndpointScope, id: string): Promise<EndpointRow> => {
    const row = await store.findEndpoint(scope, id);
    if (!row) throw notFound(`Webhook endpoint ${id}`);
    return row;
  };

  const record = (actor: Actor, action: string, target: string, details: Record<string, unknown> = {}) =>
    audit.record({
      actor: actor.name,
      action,
      organizationId: actor.organizationId,
      projectId: actor.projectId,
      target,
      details,
    });

  return {
    async create(actor: Actor, input: CreateEndpointRequest) {
      const url = checkEndpointUrl(input.url, policy);
      const now = Date.now();
      const id = newId('wh', now);
      const secret = newSigningSecret();
      const row: EndpointRow = {
        id,
        project_id: actor.projectId,
        mode: actor.mode,
        url,
        description: input.description ?? null,
        events: JSON.stringify([...new Set(input.events)]),
        status: 'enabled',
        disabled_reason: null,
        secret_sealed: seal(masterKey, secret, secretAad(id)),
        previous_secret_sealed: null,
        previous_secret_expires_at: null,
        failing_since: null,
        last_failed_at: null,
        created_at: now,
        updated_at: now,
      };
      await store.insertEndpoint(row);
      await record(actor, 'webhook.create', id, { url, events: input.events, mode: actor.mode });
      return { ...endpointView(row), secret };
    },

    async list(scope: EndpointScope, page: { limit: number; after?: string | undefined }) {
      const rows = await store.listEndpoints(scope, page.limit + 1, page.after);
      return { data: rows.slice(0, page.limit).map(endpointView), has_more: rows.length > page.limit };
    },

    async get(scope: EndpointScope, id: string) {
      return endpointView(await find(scope, id));
    },

    async update(actor: Actor, id: string, input: UpdateEndpointRequest) {
      const row = await find(actor, id);
      const patch: Partial<EndpointRow> = { updated_at: Date.now() };
      if (input.url !== undefined) patch.url = checkEndpointUrl(input.url, policy);
      // Failures of the old URL say nothing about the new one.
      if (patch.url !== undefined && patch.url !== row.url) Object.assign(patch, { failing_since: null });
      if (input.events !== undefined) patch.events = JSON.stringify([...new Set(input.events)]);
      if (input.description !== undefined) patch.description = input.description;
      if (input.status === 'disabled' && row.status === 'enabled') {
        Object.assign(patch, { status: 'disabled', disabled_reason: 'manual' });
      } else if (input.status === 'enabled' && row.status === 'disabled') {
        // A fresh start: the failing streak that may have disabled it no longer counts.
        Object.assign(patch, { status: 'enabled', disabled_reason: null, failing_since: null });
      }
      await store.updateEndpoint(id, patch);
      await record(actor, 'webhook.update', id, { ...input });
      if (patch.status === 'enabled') queued.emit('queued');
      return endpointView({ ...row, ...patch });
    },

    async remove(actor: Actor, id: string): Promise<void> {
      if (!(await store.deleteEndpoint(actor, id))) throw notFound(`Webhook endpoint ${id}`);
      await record(actor, 'webhook.delete', id);
    },

    async rotateSecret(actor: Actor, id: string) {
      const row = await find(actor, id);
      const now = Date.now();
      const secret = newSigningSecret();
      const patch: Partial<EndpointRow> = {
        secret_sealed: seal(masterKey, secret, secretAad(id)),
        previous_secret_sealed: row.secret_sealed,
        previous_secret_expires_at: now + rotationOverlapMs,
        updated_at: now,
      };
      await store.updateEndpoint(id, patch);
      await record(actor, 'webhook.rotate_secret', id);
      return {
        ...endpointView({ ...row, ...patch }),
        secret,
        previous_secret_expires_at: new Date(now + rotationOverlapMs).toISOString(),
      };
    },

    /** The secrets that sign right now: the current one, and the previous one during a rotation. */
    signingSecrets(row: EndpointRow, now: number): string[] {
      const secrets = [unseal(masterKey, row.secret_sealed, secretAad(row.id))];
      if (row.previous_secret_sealed && (row.previous_secret_expires_at ?? 0) > now) {
        secrets.push(unseal(masterKey, row.previous_secret_sealed, secretAad(row.id)));
      }
      return secrets;
    },

    async deliveries(scope: EndpointScope, id: string, page: { limit: number; after?: string | undefined }) {
      await find(scope, id);
      const rows = await store.listAttempts(id, page.limit + 1, page.after);
      return { data: rows.slice(0, page.limit).map(attemptView), has_more: rows.length > page.limit };
    },

    async delivery(scope: EndpointScope, id: string, deliveryId: string) {
      await find(scope, id);
      const row = await store.findAttempt(id, deliveryId);
      if (!row) throw notFound(`Delivery ${deliveryId}`);
      return { ...attemptView(row), payload: row.body };
    },

    /** Queues the original body again, now, as a new attempt pointing at `deliveryId`. */
    async replay(actor: Actor, id: string, deliveryId: string) {
      const endpoint = await find(actor, id);
      const original = await store.findAttempt(id, deliveryId);
      if (!original) throw notFound(`Delivery ${deliveryId}`);
      if (original.state === 'pending') throw conflict(`Delivery ${deliveryId} has not been attempted yet.`);
      if (endpoint.status !== 'enabled') {
        throw conflict(`Webhook endpoint ${id} is disabled; enable it (PATCH status "enabled") to replay.`);
      }
      // Sent before endpoints had a mode (migration 0016): the fan-out would not send it here now.
      const about = messageOfBody(original.event_type, original.body);
      const mode =
        deps.messageModes === undefined
          ? bodyMode(messageMode, original.event_type, original.body)
          : about === undefined
            ? undefined
            : ((await deps.messageModes([about])).get(about) ?? 'live');
      if (mode !== undefined && mode !== endpoint.mode) {
        throw conflict(
          `Delivery ${deliveryId} is about a ${mode} message; a ${endpoint.mode} endpoint receives the events of ${endpoint.mode} messages only, so it cannot be replayed here.`,
        );
      }
      const now = Date.now();
      const attempt = pendingAttempt(
        {
          message_id: original.message_id,
          endpoint_id: id,
          attempt: 1,
          trigger: 'replay',
          replay_of: original.id,
          previous_attempt_id: null,
        },
        now,
      );
      await store.insertAttempt(attempt);
      await record(actor, 'webhook.replay', id, { delivery_id: deliveryId, replay_id: attempt.id });
      queued.emit('queued');
      return attemptView({
        ...attempt,
        event_id: original.event_id,
        event_type: original.event_type,
        body: '',
      });
    },

    /** The dispatcher listens here to send replays and resumed endpoints without waiting. */
    onQueued(listener: () => void): () => void {
      queued.on('queued', listener);
      return () => queued.off('queued', listener);
    },

    endpointById: (id: string) => store.endpointById(id),

    /** Due deliveries not sent yet and the due time of the oldest (the status area's backlog). */
    backlog: (now: number = Date.now()) => store.backlog(now),

    /**
     * Checks a URL another capability will POST to (status subscribers) by the endpoints' rules:
     * https:// always, no credentials, no IP literal of a forbidden range unless
     * `webhooks.allow_private_targets`. Returns the normalized URL or throws a 400.
     */
    checkTargetUrl: (url: string) => checkEndpointUrl(url, { ...policy, allowHttp: false }),

    /**
     * Sends one POST as the dispatcher does (resolved, SSRF-checked and pinned host, the trusted
     * CAs, bounded response), for other capabilities' signed requests; never throws.
     */
    deliver: (request: Omit<WebhookRequest, 'allowPrivate' | 'timeoutMs'>) =>
      send({ ...request, timeoutMs, allowPrivate: config.allow_private_targets }),

    /** The timeout of one webhook request (`webhooks.timeout`). */
    timeoutMs,
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;

/** Shared by the webhook tests: create an endpoint, append an event the way the pipeline does. */
import type { EventType } from '../../src/events/types.js';
import { newId } from '../../src/platform/ids.js';
import type { Posthorn } from '../helpers/server.js';

export async function createEndpoint(
  ph: Posthorn,
  url: string,
  events: string[] = ['*'],
  key?: string,
): Promise<{ id: string; secret: string }> {
  const res = await ph.request('POST', '/v1/webhooks', { body: { url, events }, ...(key ? { key } : {}) });
  if (res.status !== 201) throw new Error(`create endpoint: ${res.status} ${res.text}`);
  return res.body;
}

/**
 * Appends one event for the owner's project and tells the dispatcher, as a state change would;
 * about a new message unless `messageId` names one.
 */
export async function emit(
  ph: Posthorn,
  type: EventType = 'email.delivered',
  data: Record<string, unknown> = {},
  projectId = ph.owner.projectId,
  messageId = newId('msg'),
) {
  const { events } = ph.server.services;
  const payload = await events.append(ph.server.kernel.db, {
    projectId,
    type,
    messageId,
    recipient: 'jane@example.com',
    data: { email_id: messageId, to: ['jane@example.com'], subject: 'Hi', ...data },
  });
  events.notify();
  return payload;
}

export async function deliveries(ph: Posthorn, endpointId: string, query = '') {
  const res = await ph.request('GET', `/v1/webhooks/${endpointId}/deliveries${query}`);
  if (res.status !== 200) throw new Error(`deliveries: ${res.status} ${res.text}`);
  return res.body as { data: any[]; has_more: boolean };
}

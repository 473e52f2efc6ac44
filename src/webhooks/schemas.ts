/** Request and response shapes of `/v1/webhooks` (spec §4.3, §6; the spec leaves them open). */
import { z } from 'zod';
import { EVENT_TYPES } from '../events/types.js';

const eventSelector = z.enum(['*', ...EVENT_TYPES]);

const eventList = z
  .array(eventSelector)
  .min(1)
  .max(EVENT_TYPES.length)
  .refine((events) => !events.includes('*') || events.length === 1, {
    message: '"*" subscribes to every event and must be the only item',
  })
  .describe('Event types to receive, or ["*"] for every type.');

export const createEndpointRequest = z.strictObject({
  url: z.string().min(1).max(2048).describe('Where events are POSTed; https:// unless webhooks.allow_http.'),
  events: eventList,
  description: z.string().max(500).optional().describe('A note for people, shown in lists.'),
});

export const updateEndpointRequest = z
  .strictObject({
    url: z.string().min(1).max(2048).optional(),
    events: eventList.optional(),
    description: z.string().max(500).nullable().optional(),
    status: z
      .enum(['enabled', 'disabled'])
      .optional()
      .describe('Disable to pause deliveries (pending ones wait); enable to resume them.'),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'give at least one field to change' });

export const endpointRecord = z.object({
  id: z.string().describe('wh_...'),
  mode: z
    .enum(['live', 'test'])
    .describe(
      "The mode of the key that created it: it receives the events of that mode's messages (and events of no message, such as domain.*), and only keys of that mode see it.",
    ),
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(z.string()),
  status: z.enum(['enabled', 'disabled']),
  disabled_reason: z
    .enum(['gone', 'failing', 'manual'])
    .nullable()
    .describe('gone: the endpoint answered 410; failing: it failed for webhooks.disable_after; manual.'),
  created_at: z.string(),
  updated_at: z.string(),
});

export const endpointWithSecret = endpointRecord.extend({
  secret: z.string().describe('The whsec_ signing secret; shown only here, keep it safe.'),
});

export const rotatedEndpoint = endpointWithSecret.extend({
  previous_secret_expires_at: z
    .string()
    .describe('Until then deliveries carry signatures by both the previous and the new secret.'),
});

export const endpointList = z.object({ data: z.array(endpointRecord), has_more: z.boolean() });

export const attemptRecord = z.object({
  id: z.string().describe('whd_...'),
  endpoint_id: z.string(),
  webhook_id: z.string().describe('The webhook-id header: the same for every attempt of one event.'),
  event_id: z.string(),
  event_type: z.string(),
  attempt: z.number().int().describe('1 for the first try, then 2, 3, ... for retries.'),
  trigger: z.enum(['event', 'retry', 'replay']),
  replay_of: z.string().nullable().describe('The attempt this one replays.'),
  previous_attempt_id: z.string().nullable().describe('The failed attempt this one retries.'),
  status: z.enum(['pending', 'succeeded', 'failed']),
  scheduled_at: z.string().describe('When the attempt is (or was) due.'),
  url: z.string().nullable(),
  requested_at: z.string().nullable(),
  duration_ms: z.number().int().nullable(),
  response_status: z.number().int().nullable(),
  response_headers: z
    .record(z.string(), z.string())
    .describe('Only content-type, content-length, date and retry-after.'),
  response_body: z.string().nullable().describe('The first 2 KB of the response body.'),
  error: z
    .string()
    .nullable()
    .describe(
      'Why no response arrived (refused, DNS, connect, TLS, timeout), or why the attempt was never sent.',
    ),
  created_at: z.string(),
});

export const attemptDetail = attemptRecord.extend({
  payload: z.string().describe('The exact request body that was signed and sent.'),
});

export const attemptList = z.object({ data: z.array(attemptRecord), has_more: z.boolean() });

export const endpointParams = z.strictObject({ id: z.string().min(1).max(64) });
export const attemptParams = z.strictObject({
  id: z.string().min(1).max(64),
  deliveryId: z.string().min(1).max(64),
});

export const endpointListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('Items per page, 1 to 100.'),
  after: z.string().max(64).optional().describe('Return endpoints after this ID (oldest first).'),
});

export const attemptListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50).describe('Attempts per page, 1 to 200.'),
  after: z.string().max(64).optional().describe('Return attempts older than this attempt ID (newest first).'),
});

export type CreateEndpointRequest = z.infer<typeof createEndpointRequest>;
export type UpdateEndpointRequest = z.infer<typeof updateEndpointRequest>;
export type EndpointRecord = z.infer<typeof endpointRecord>;
export type AttemptRecord = z.infer<typeof attemptRecord>;

/** Request and response schemas of the public status routes (they also feed the OpenAPI document). */
import { z } from 'zod';
import { COMPONENT_STATES, COMPONENTS } from './model.js';

export const subscriptionRequest = z.strictObject({
  channel: z
    .enum(['email', 'webhook'])
    .describe('email: a verification link is mailed; webhook: an HTTPS challenge.'),
  destination: z
    .string()
    .min(1)
    .max(2048)
    .describe('The email address, or the https:// URL that receives signed notices.'),
});

export const subscriptionBody = z.object({
  id: z.string(),
  channel: z.enum(['email', 'webhook']),
  destination: z.string(),
  state: z.enum(['pending', 'verified', 'removed']),
  created_at: z.iso.datetime(),
  verified_at: z.iso.datetime().nullable(),
  secret: z
    .string()
    .optional()
    .describe(
      "A webhook subscription's `whsec_` signing secret (Standard Webhooks): shown once, when created.",
    ),
});

export const tokenParams = z.object({ token: z.string().min(1).max(200) });

export const oneClickBody = z.strictObject({
  'List-Unsubscribe': z.literal('One-Click').describe('RFC 8058 one-click unsubscribe.'),
});

export const statusQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .optional()
    .describe('Incidents of the history per page, 1 to 100 (default 20).'),
  after: z.string().max(64).optional().describe('Return history older than this incident ID (newest first).'),
});

const update = z.object({
  id: z.string(),
  state: z.string(),
  message: z.string(),
  created_at: z.iso.datetime(),
});

const incident = z.object({
  id: z.string(),
  kind: z.enum(['incident', 'maintenance']),
  title: z.string(),
  impact: z.string().describe('degraded, partial_outage or major_outage; maintenance for a window.'),
  state: z
    .string()
    .describe(
      'investigating, identified, monitoring, resolved; scheduled, in_progress, completed, cancelled for a window.',
    ),
  components: z.array(z.enum(COMPONENTS)),
  automatic: z.boolean().describe('Opened by Posthorn itself from its measurements.'),
  starts_at: z.iso.datetime().nullable().optional(),
  ends_at: z.iso.datetime().nullable().optional(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  resolved_at: z.iso.datetime().nullable(),
  updates: z.array(update).describe('Newest first.'),
});

export const statusBodySchema = z.object({
  status: z.enum(COMPONENT_STATES).describe('The worst state of any component.'),
  summary: z.string(),
  updated_at: z.iso.datetime(),
  components: z.array(
    z.object({
      id: z.enum(COMPONENTS),
      name: z.string(),
      status: z.enum(COMPONENT_STATES),
      updated_at: z.iso.datetime().describe('Since when it has been in this state.'),
      under_maintenance: z.boolean(),
    }),
  ),
  incidents: z.array(incident).describe('Open incidents.'),
  maintenance: z.array(incident).describe('Maintenance windows scheduled or in progress.'),
  history: z
    .object({ data: z.array(incident), has_more: z.boolean() })
    .describe('Every incident and window, newest first.'),
});

/**
 * Config section of outgoing webhooks.
 */
import { z } from 'zod';
import { duration } from './fields.js';

export const webhooksSection = z
  .strictObject({
    allow_http: z.boolean().default(false).describe('Allow http:// endpoint URLs (tests only).'),
    allow_private_targets: z
      .boolean()
      .default(false)
      .describe('Allow endpoints on loopback, private or link-local addresses (tests only).'),
    timeout: duration({ min: '1ms', timer: true }).default('15s').describe('Timeout of one webhook request.'),
    lease_margin: duration({ min: '1s', timer: true })
      .default('60s')
      .describe(
        'How long a webhook request in flight stays leased beyond its timeout: a node that dies mid-request has the request sent again (same webhook-id) by another node, or after a restart, this long after the timeout.',
      ),
    concurrency: z.int().positive().default(16).describe('Webhook requests in flight at once.'),
    per_endpoint_concurrency: z
      .int()
      .positive()
      .default(4)
      .describe('Webhook requests in flight to one endpoint, so one slow endpoint never delays the others.'),
    retry_schedule: z
      .array(duration())
      .min(1)
      .default(['5s', '5m', '30m', '2h', '5h', '10h', '10h'])
      .describe('Delays before each retry of a failed webhook; after the last one the delivery is failed.'),
    disable_after: duration()
      .default('5d')
      .describe('An endpoint whose deliveries have failed without a success for this long is disabled.'),
    tls_ca_file: z
      .string()
      .default('')
      .describe(
        'Extra PEM CA certificates trusted for https:// webhook targets (endpoints and status subscribers), besides the system CAs; empty uses the system CAs only.',
      ),
    rotation_overlap: duration()
      .default('24h')
      .describe('After a secret rotation, how long the previous secret keeps signing alongside the new one.'),
  })
  .describe('Outgoing webhooks.');

/**
 * Config section of the direct-to-MX delivery engine, and the shape of one provider lane.
 */
import { z } from 'zod';
import { duration, ipAddress } from './fields.js';
import { hostName, spfIncludeDomain, subdomain } from './names.js';

/**
 * What a lane takes for a key its `[[delivery.lanes]]` block leaves out, when no built-in lane of
 * that name and traffic class exists (a built-in lane keeps its own values: see delivery/routing/lanes.ts).
 */
export const newLaneDefaults = {
  max_connections: 8,
  messages_per_connection: 50,
  rate_per_second: 50,
  connections_per_mx: 4,
  tls: '',
} as const;

const unsetKeeps = (fallback: unknown) =>
  `; unset keeps the built-in lane's value, or ${JSON.stringify(fallback)} for a new lane`;

/**
 * One `[[delivery.lanes]]` block. Budget keys have no default here on purpose: a block that names
 * a built-in lane changes only the keys it sets.
 */
export const laneSchema = z.strictObject({
  name: z.string().min(1).describe('Lane name, e.g. "gmail".'),
  traffic: z
    .enum(['transactional', 'marketing'])
    .default('transactional')
    .describe('Traffic class this lane carries; each class has its own lanes and budgets.'),
  mx_suffixes: z
    .array(z.string())
    .default([])
    .describe("MX host suffixes that select this lane; empty keeps the built-in lane's."),
  max_connections: z
    .int()
    .positive()
    .optional()
    .describe(`Concurrent SMTP connections of this lane${unsetKeeps(newLaneDefaults.max_connections)}.`),
  messages_per_connection: z
    .int()
    .positive()
    .optional()
    .describe(`Messages sent over one connection${unsetKeeps(newLaneDefaults.messages_per_connection)}.`),
  rate_per_second: z
    // The lane waits 1/rate seconds for a token: below 0.001 the wait can overflow a Node timer.
    .number()
    .min(0.001)
    .optional()
    .describe(`Messages per second this lane may start${unsetKeeps(newLaneDefaults.rate_per_second)}.`),
  connections_per_mx: z
    .int()
    .positive()
    .optional()
    .describe(`Concurrent connections to one MX host${unsetKeeps(newLaneDefaults.connections_per_mx)}.`),
  tls: z
    .enum(['opportunistic', 'require', ''])
    .optional()
    .describe('TLS policy override for this lane; empty or unset follows delivery.tls.'),
});

export const deliverySection = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Run the delivery engine.'),
    hostname: hostName
      .default('localhost')
      .describe(
        'EHLO name of outgoing connections, and the host SPF authorizes (a:) when neither sending_ips nor spf_include is set.',
      ),
    port: z.int().min(1).max(65535).default(25).describe('TCP port used to reach MX hosts.'),
    retry_schedule: z
      .array(duration({ min: '1ms' }))
      .min(1)
      .default(['1m', '5m', '15m', '30m', '1h', '2h', '4h'])
      .describe('Delays between delivery attempts after a temporary failure; the last one repeats.'),
    max_age: duration({ min: '1ms' })
      .default('4d')
      .describe(
        'Give up and bounce a message this long after acceptance (after send_at for a scheduled send).',
      ),
    tls: z
      .enum(['opportunistic', 'require'])
      .default('opportunistic')
      .describe('STARTTLS policy: use when offered, or refuse to deliver without it.'),
    source_ips: z
      .array(ipAddress)
      .default([])
      .describe(
        "Local IP addresses of this host to send from, taken in turn per connection (each must be bindable here when serve starts); empty uses the system's choice.",
      ),
    sending_ips: z
      .array(ipAddress)
      .default([])
      .describe('Public addresses SPF must authorize (used by domain verification).'),
    spf_include: spfIncludeDomain
      .default('')
      .describe('An SPF include: domain that authorizes this appliance, as an alternative to sending_ips.'),
    bounce_subdomain: subdomain('bounces')
      .default('bounces')
      .describe(
        'Subdomain of each sending domain used for VERP return paths (<bounce_subdomain>.<domain>): lower-case DNS labels.',
      ),
    soft_bounce_limit: z
      .int()
      .positive()
      .default(5)
      .describe('Soft bounces in a row that put an address on the suppression list.'),
    lease: duration({ min: '2s', timer: true })
      .default('5m')
      .describe(
        'How long a claimed job stays locked before it is due again (at least 2s: leases of jobs in progress are renewed every second or more).',
      ),
    poll_interval: duration({ min: '1ms', timer: true })
      .default('1s')
      .describe('How often the engine looks for due jobs when nothing wakes it (a send wakes it at once).'),
    claim_batch: z.int().positive().max(5000).default(200).describe('Most jobs claimed by one query.'),
    connect_timeout: duration({ min: '1ms', timer: true })
      .default('30s')
      .describe(
        'Time allowed to open a TCP connection to an MX host (the greeting then gets smtp_timeout, RFC 5321 §4.5.3.2.1).',
      ),
    smtp_timeout: duration({ min: '1ms', timer: true })
      .default('5m')
      .describe(
        'Time allowed for one SMTP reply, the greeting included (RFC 5321 §4.5.3.2 asks for minutes, not seconds); the reply to the end of DATA gets at least 10 minutes (§4.5.3.2.6).',
      ),
    idle_timeout: duration({ timer: true })
      .default('5s')
      .describe('An unused connection to an MX host is closed after this long.'),
    drain_timeout: duration({ timer: true })
      .default('10s')
      .describe(
        'On shutdown, how long transactions in flight may take before their jobs are released (counted from the SIGTERM, beside server.shutdown_timeout).',
      ),
    mta_sts: z
      .boolean()
      .default(true)
      .describe('Honour MTA-STS policies (RFC 8461) published by recipient domains.'),
    mta_sts_port: z
      .int()
      .min(1)
      .max(65535)
      .default(443)
      .describe('HTTPS port MTA-STS policies are fetched from (443; changeable for tests).'),
    tls_ca_file: z
      .string()
      .default('')
      .describe(
        'Extra PEM CA certificates trusted when a certificate must verify (MTA-STS hosts, MX hosts under an enforced policy); empty uses the system CAs only.',
      ),
    lanes: z
      .array(laneSchema)
      .superRefine((lanes, ctx) => {
        const seen = new Set<string>();
        lanes.forEach((lane, index) => {
          const key = `${lane.traffic}/${lane.name}`;
          if (seen.has(key))
            ctx.addIssue({
              code: 'custom',
              path: [index, 'name'],
              message: `lane "${lane.name}" appears twice for ${lane.traffic} traffic`,
            });
          seen.add(key);
        });
      })
      .default([])
      .describe(
        'Provider lanes, merged with the built-in ones (gmail, outlook, yahoo, icloud, default); a lane with the name and traffic of a built-in one changes the keys it sets.',
      ),
  })
  .describe('The direct-to-MX delivery engine.');

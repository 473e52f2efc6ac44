/**
 * Config sections of the appliance itself: the HTTP API, the SQLite store, secrets at rest, DNS,
 * rate limits, retention, the status area and logging.
 */
import { z } from 'zod';
import { duration, hostPort, httpUrl, ipPort, MAX_TIMER_MS } from './fields.js';

export const serverSection = z
  .strictObject({
    listen: hostPort.default('127.0.0.1:8080').describe('Address and port of the HTTP API.'),
    public_url: httpUrl
      .default('http://127.0.0.1:8080')
      .describe('Base URL applications and recipients use to reach this server (links, tracking).'),
    shutdown_timeout: duration({ timer: true })
      .default('10s')
      .describe(
        "On SIGTERM, how long in-flight requests and inbound SMTP sessions may take before connections are closed (a message being committed then gets up to 5s more to be answered, and received mail still being processed 5s after that; the rest waits in the spool for the next start). It runs beside delivery.drain_timeout; keep both well under the unit's TimeoutStopSec of 30s (config check and serve warn when a stop may take 25s: from 15s on here, from 25s on for delivery.drain_timeout).",
      ),
    trust_proxy: z
      .boolean()
      .default(false)
      .describe('Trust X-Forwarded-For from a reverse proxy when recording client addresses.'),
    max_connections: z
      .int()
      .positive()
      .default(4096)
      .describe(
        'Open HTTP connections at most; past it new ones are closed at once (keeps file descriptors and memory bounded under a flood of slow clients).',
      ),
    headers_timeout: duration({ min: '1ms', timer: true })
      .default('10s')
      .describe(
        'Time a client has to send its request headers; a slower one is answered 408 and closed (slowloris).',
      ),
    request_timeout: duration({ min: '1ms', timer: true })
      .default('2m')
      .describe(
        'Time a client has to send a whole request, body included; a slower one is answered 408 and closed.',
      ),
  })
  .describe('The HTTP API.');

/** A PostgreSQL connection URL: postgres:// or postgresql://, host and database named. */
const postgresUrl = z.string().refine(
  (value) => {
    if (value === '') return true;
    try {
      const url = new URL(value);
      return (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && url.pathname.length > 1;
    } catch {
      return false;
    }
  },
  {
    message:
      'must be a URL such as postgres://posthorn@db.example.com:5432/posthorn (host and database named)',
  },
);

export const storageSection = z
  .strictObject({
    engine: z
      .enum(['sqlite', 'postgresql'])
      .default('sqlite')
      .describe(
        'sqlite: one embedded file in data_dir (one node). postgresql: the database at url, shared by several identical nodes.',
      ),
    url: postgresUrl
      .default('')
      .describe(
        'With engine = "postgresql": postgres://user@host:port/database. The password comes from password_file, the URL or PGPASSWORD; it is never logged.',
      ),
    password_file: z
      .string()
      .default('')
      .describe(
        'With engine = "postgresql": a file holding the database password (read at start; one line).',
      ),
    pool_size: z
      .int()
      .min(2)
      .max(200)
      .default(10)
      .describe('With engine = "postgresql": connections this node keeps open to the database.'),
    data_dir: z
      .string()
      .min(1)
      .default('./data')
      .describe('Directory for the SQLite database, the master key and received mail.'),
    busy_timeout_ms: z
      .int()
      .min(0)
      .max(60_000)
      .default(5000)
      .describe('How long a write waits for the database lock before failing.'),
    synchronous: z
      .enum(['full', 'normal'])
      .default('full')
      .describe('full: a 202 survives power loss (fsync per commit); normal: survives a process crash only.'),
  })
  .refine((storage) => storage.engine !== 'postgresql' || storage.url !== '', {
    message: 'storage.url is required when storage.engine = "postgresql"',
    path: ['url'],
  })
  .describe(
    'The store: the embedded SQLite file (default), or a PostgreSQL database shared by several nodes.',
  );

export const securitySection = z
  .strictObject({
    master_key_file: z
      .string()
      .default('')
      .describe(
        'File holding the 256-bit master key that encrypts DKIM keys and credentials at rest; empty means <data_dir>/master.key.',
      ),
  })
  .describe('Secrets at rest.');

export const dnsSection = z
  .strictObject({
    servers: z.array(ipPort).default([]).describe('Resolvers as ip:port; empty uses the system resolver.'),
    timeout_ms: z.int().positive().max(MAX_TIMER_MS).default(5000).describe('Timeout of one DNS query.'),
  })
  .describe(
    'DNS resolution for MX lookups, domain verification, inbound mail authentication and webhook hosts.',
  );

export const limitsSection = z
  .strictObject({
    max_body_bytes: z.int().positive().default(5_242_880).describe('Largest accepted HTTP request body.'),
    sends_per_minute_per_key: z
      .int()
      .min(0)
      .default(6000)
      .describe('Send requests per minute per API key; 0 is unlimited.'),
    sends_per_hour_per_recipient: z
      .int()
      .min(0)
      .default(120)
      .describe('Messages per hour to one recipient address per project; 0 is unlimited.'),
    daily_quota: z
      .int()
      .min(0)
      .default(0)
      .describe(
        'Live messages per day per project (sends with ph_test_ keys are not counted); 0 is unlimited.',
      ),
    login_attempts_per_hour: z.int().positive().default(20).describe('Login attempts per hour per address.'),
  })
  .describe('Rate limits and quotas.');

export const retentionSection = z
  .strictObject({
    events_days: z.int().positive().default(90).describe('Days events and webhook attempts are kept.'),
    messages_days: z
      .int()
      .positive()
      .default(90)
      .describe(
        'Days the bodies of sent and received messages, and received attachments, are kept (a message still waiting to be sent keeps its body).',
      ),
  })
  .describe('How long history is kept.');

export const statusSection = z
  .strictObject({
    title: z.string().default('Posthorn').describe('Name shown on the public status page and feed.'),
    check_interval: duration({ min: '10ms', timer: true })
      .default('10s')
      .describe('How often the components (API, database, delivery, inbound, webhooks) are measured.'),
    auto_incidents: z
      .boolean()
      .default(true)
      .describe(
        'Open an incident by itself when a component stays below operational, and resolve it on recovery.',
      ),
    auto_incident_after: duration({ timer: true })
      .default('5m')
      .describe('How long a component must stay below operational before an automatic incident opens.'),
    auto_resolve_after: duration({ timer: true })
      .default('2m')
      .describe('How long a component must be operational again before its automatic incident is resolved.'),
    deferral_window: duration({ min: '1s' })
      .default('15m')
      .describe('Window over which the share of deferred delivery attempts is measured, per lane.'),
    deferral_min_attempts: z
      .int()
      .positive()
      .default(20)
      .describe('Delivery attempts a lane needs within the window before its deferral share is judged.'),
    deferral_degraded: z
      .number()
      .gt(0)
      .max(1)
      .default(0.25)
      .describe("Share of a lane's attempts deferred within the window that makes delivery degraded."),
    deferral_outage: z
      .number()
      .gt(0)
      .max(1)
      .default(0.5)
      .describe(
        "Share of a lane's attempts deferred within the window that makes delivery a partial outage.",
      ),
    webhook_backlog_degraded: duration({ min: '1ms' })
      .default('5m')
      .describe('Webhooks are degraded when a due delivery has waited this long to be sent.'),
    webhook_backlog_outage: duration({ min: '1ms' })
      .default('30m')
      .describe('Webhooks are a partial outage when a due delivery has waited this long to be sent.'),
    verification_ttl: duration({ min: '1m' })
      .default('3d')
      .describe('How long the link of a subscription verification mail stays valid.'),
    subscriptions_per_hour_per_ip: z
      .int()
      .min(0)
      .default(10)
      .describe('Status subscription requests per hour from one client address; 0 is unlimited.'),
    subscriptions_per_hour_per_destination: z
      .int()
      .min(0)
      .default(3)
      .describe(
        'Status subscription requests per hour for one address or URL (each may send a mail or a challenge); 0 is unlimited.',
      ),
    retry_schedule: z
      .array(duration())
      .min(1)
      .default(['10s', '1m', '5m', '30m', '2h', '6h', '12h'])
      .describe(
        'Delays before each retry of a failed subscriber webhook or challenge; after the last one it is given up.',
      ),
  })
  .describe('The public status area: components, incidents, feed and subscriptions.');

export const logSection = z
  .strictObject({
    level: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info')
      .describe('Least severe level written to the log.'),
    format: z
      .enum(['auto', 'json', 'pretty'])
      .default('auto')
      .describe(
        'How serve writes its log: json (one object per line), pretty (one readable line per record), or auto: pretty on a terminal, json otherwise (the journal under systemd).',
      ),
    access_log: z
      .boolean()
      .default(true)
      .describe(
        'Log one line per HTTP request, at info; health checks (GET /health) at debug; answered tracking hits counted into one line per route every 10 s (a failed one keeps its own line).',
      ),
  })
  .describe('Structured logs on standard output.');

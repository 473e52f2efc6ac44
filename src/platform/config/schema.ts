/**
 * The one configuration schema. Every key has a description and a default that serves a single
 * small VPS; `config/posthorn.example.toml` is generated from these descriptions, and
 * `posthorn config check` validates against this schema. Keys marked `secret` are redacted by
 * `posthorn config print`.
 */
import { z } from 'zod';

const hostPort = z
  .string()
  .regex(/^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):\d{1,5}$/, 'must be host:port, e.g. 127.0.0.1:8080 or [::1]:8080');
const ipPort = z
  .string()
  .regex(
    /^(\[[0-9a-fA-F:.]+\]|\d{1,3}(\.\d{1,3}){3}):\d{1,5}$/,
    'must be an IP address and port, e.g. 127.0.0.1:53 or [::1]:53 (resolvers are addressed by IP)',
  );
const duration = z
  .string()
  .regex(/^\d+(ms|s|m|h|d)$/, 'must be a duration like "500ms", "30s", "5m", "4h" or "4d"');
const secret = { secret: true } as const;

const server = z
  .strictObject({
    listen: hostPort.default('127.0.0.1:8080').describe('Address and port of the HTTP API.'),
    public_url: z
      .url()
      .default('http://127.0.0.1:8080')
      .describe('Base URL applications and recipients use to reach this server (links, tracking).'),
    shutdown_timeout: duration
      .default('10s')
      .describe('On SIGTERM, how long in-flight requests may take before connections are closed.'),
    trust_proxy: z
      .boolean()
      .default(false)
      .describe('Trust X-Forwarded-For from a reverse proxy when recording client addresses.'),
  })
  .describe('The HTTP API.');

const storage = z
  .strictObject({
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
  .describe('The embedded SQLite store.');

const security = z
  .strictObject({
    master_key_file: z
      .string()
      .default('')
      .describe(
        'File holding the 256-bit master key that encrypts DKIM keys and credentials at rest; empty means <data_dir>/master.key.',
      ),
  })
  .describe('Secrets at rest.');

const smtpIn = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Run the inbound SMTP listener.'),
    listen: hostPort.default('127.0.0.1:2525').describe('Address and port of the inbound SMTP listener.'),
    hostname: z.string().min(1).default('localhost').describe('Name announced in the SMTP greeting.'),
    max_message_bytes: z
      .int()
      .positive()
      .default(26_214_400)
      .describe('Largest message accepted (advertised with SIZE).'),
    max_recipients: z.int().positive().default(100).describe('Recipients accepted per message.'),
    max_connections_per_ip: z.int().positive().default(10).describe('Concurrent connections per client IP.'),
    tls_cert_file: z
      .string()
      .default('')
      .describe('PEM certificate for STARTTLS; empty generates a self-signed one.'),
    tls_key_file: z.string().default('').meta(secret).describe('PEM private key for STARTTLS.'),
    complaint_address: z
      .string()
      .default('fbl@localhost')
      .describe('Address that receives feedback-loop (ARF) complaint reports.'),
    idle_timeout: duration
      .default('2m')
      .describe(
        'Close a connection that sends nothing for this long (RFC 5321 §4.5.3.2 allows 5m; slow clients are cut off).',
      ),
    max_session: duration
      .default('10m')
      .describe('Longest time one connection may stay open, whatever it does; then 421 and close.'),
    max_commands: z
      .int()
      .positive()
      .default(200)
      .describe(
        'Commands a client may send before DATA (per transaction); more gets 421 and the connection is closed.',
      ),
    workers: z
      .int()
      .min(0)
      .max(64)
      .default(1)
      .describe('Worker threads that parse and authenticate received mail; 0 does it on the main thread.'),
    max_refused_recipients: z
      .int()
      .positive()
      .default(20)
      .describe('Refused RCPT TO commands per connection before it is cut off (address harvesting).'),
  })
  .describe('The inbound SMTP listener.');

export const laneSchema = z.strictObject({
  name: z.string().min(1).describe('Lane name, e.g. "gmail".'),
  traffic: z
    .enum(['transactional', 'marketing'])
    .default('transactional')
    .describe('Traffic class this lane carries; each class has its own lanes and budgets.'),
  mx_suffixes: z.array(z.string()).default([]).describe('MX host suffixes that select this lane.'),
  max_connections: z.int().positive().default(8).describe('Concurrent SMTP connections of this lane.'),
  messages_per_connection: z.int().positive().default(50).describe('Messages sent over one connection.'),
  rate_per_second: z.number().positive().default(50).describe('Messages per second this lane may start.'),
  connections_per_mx: z.int().positive().default(4).describe('Concurrent connections to one MX host.'),
  tls: z.enum(['opportunistic', 'require', '']).default('').describe('TLS policy override for this lane.'),
});

const delivery = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Run the delivery engine.'),
    hostname: z.string().min(1).default('localhost').describe('EHLO name of outgoing connections.'),
    port: z.int().min(1).max(65535).default(25).describe('TCP port used to reach MX hosts.'),
    retry_schedule: z
      .array(duration)
      .min(1)
      .default(['1m', '5m', '15m', '30m', '1h', '2h', '4h'])
      .describe('Delays between delivery attempts after a temporary failure; the last one repeats.'),
    max_age: duration.default('4d').describe('Give up and bounce a message this long after acceptance.'),
    tls: z
      .enum(['opportunistic', 'require'])
      .default('opportunistic')
      .describe('STARTTLS policy: use when offered, or refuse to deliver without it.'),
    source_ips: z
      .array(z.string())
      .default([])
      .describe('Local addresses to send from; empty uses the default.'),
    sending_ips: z
      .array(z.string())
      .default([])
      .describe('Public addresses SPF must authorize (used by domain verification).'),
    spf_include: z
      .string()
      .default('')
      .describe('An SPF include: domain that authorizes this appliance, as an alternative to sending_ips.'),
    bounce_subdomain: z
      .string()
      .default('bounces')
      .describe('Subdomain of each sending domain used for VERP.'),
    soft_bounce_limit: z
      .int()
      .positive()
      .default(5)
      .describe('Soft bounces in a row that put an address on the suppression list.'),
    lease: duration.default('5m').describe('How long a claimed job stays locked before it is due again.'),
    poll_interval: duration
      .default('1s')
      .describe('How often the engine looks for due jobs when nothing wakes it (a send wakes it at once).'),
    claim_batch: z.int().positive().max(5000).default(200).describe('Most jobs claimed by one query.'),
    connect_timeout: duration
      .default('30s')
      .describe('Time allowed to open a connection to an MX host and read its greeting.'),
    smtp_timeout: duration
      .default('5m')
      .describe('Time allowed for one SMTP reply (RFC 5321 §4.5.3.2 asks for minutes, not seconds).'),
    idle_timeout: duration
      .default('5s')
      .describe('An unused connection to an MX host is closed after this long.'),
    drain_timeout: duration
      .default('10s')
      .describe('On shutdown, how long transactions in flight may take before their jobs are released.'),
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
      .default([])
      .describe(
        'Provider lanes, merged with the built-in ones (gmail, outlook, yahoo, icloud, default); a lane with the name and traffic of a built-in one replaces it.',
      ),
  })
  .describe('The direct-to-MX delivery engine.');

const dkim = z
  .strictObject({
    rsa_bits: z
      .union([z.literal(1024), z.literal(2048), z.literal(4096)])
      .default(2048)
      .describe('RSA key size.'),
    ed25519: z.boolean().default(false).describe('Also sign with an ed25519 key (RFC 8463).'),
    selector_prefix: z.string().default('ph').describe('Prefix of generated DKIM selectors.'),
    workers: z.int().min(0).max(64).default(0).describe('Signing worker threads; 0 picks one per CPU.'),
  })
  .describe('DKIM keys and signing.');

const dns = z
  .strictObject({
    servers: z.array(ipPort).default([]).describe('Resolvers as ip:port; empty uses the system resolver.'),
    timeout_ms: z.int().positive().default(5000).describe('Timeout of one DNS query.'),
  })
  .describe(
    'DNS resolution for MX lookups, domain verification, inbound mail authentication and webhook hosts.',
  );

const domains = z
  .strictObject({
    recheck_cron: z
      .string()
      .regex(/^\S+(\s+\S+){4,5}$/, 'must be a cron expression with 5 or 6 fields, e.g. "17 4 * * *"')
      .default('17 4 * * *')
      .describe(
        'When the DNS of every sending domain is checked again (cron, local time); a verified domain that broke is marked failed.',
      ),
    tracking_subdomain: z
      .string()
      .regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'must be one DNS label, e.g. "track"')
      .default('track')
      .describe('Label of the optional per-domain tracking host (<label>.<domain>) the DNS records suggest.'),
  })
  .describe('Sending domains: DNS verification and its daily re-check.');

const clamav = z
  .strictObject({
    host: z.string().default('127.0.0.1').describe('clamd TCP host.'),
    port: z.int().min(0).max(65535).default(3310).describe('clamd TCP port.'),
    socket: z.string().default('').describe('clamd Unix socket; used instead of host/port when set.'),
    timeout_ms: z.int().positive().default(30_000).describe('Timeout of one scan.'),
    max_attempts: z
      .int()
      .positive()
      .default(3)
      .describe(
        'Scans of one attachment that may fail while clamd is up (e.g. over its StreamMaxLength) before it is marked error.',
      ),
    rescan_interval: duration
      .default('15s')
      .describe('How often attachments still pending (clamd was down) are scanned again.'),
  })
  .describe('ClamAV scanning of inbound attachments.');

const tracking = z
  .strictObject({
    domain: z.string().default('').describe('Default tracking host; empty uses server.public_url.'),
  })
  .describe('Open and click tracking.');

const sandbox = z
  .strictObject({
    from: z
      .string()
      .default('Posthorn Sandbox <sandbox@posthorn.test>')
      .describe('The shared sandbox sender projects may use before a domain is verified.'),
    test_domain: z
      .string()
      .default('posthorn.test')
      .describe('Domain of the reserved test recipients (bounce@, complaint@, delay@) for ph_test_ keys.'),
  })
  .describe('Sandbox and test-mode sending.');

const limits = z
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
    daily_quota: z.int().min(0).default(0).describe('Messages per day per project; 0 is unlimited.'),
    login_attempts_per_hour: z.int().positive().default(20).describe('Login attempts per hour per address.'),
  })
  .describe('Rate limits and quotas.');

const webhooks = z
  .strictObject({
    allow_http: z.boolean().default(false).describe('Allow http:// endpoint URLs (tests only).'),
    allow_private_targets: z
      .boolean()
      .default(false)
      .describe('Allow endpoints on loopback, private or link-local addresses (tests only).'),
    timeout: duration.default('15s').describe('Timeout of one webhook request.'),
    concurrency: z.int().positive().default(16).describe('Webhook requests in flight at once.'),
    per_endpoint_concurrency: z
      .int()
      .positive()
      .default(4)
      .describe('Webhook requests in flight to one endpoint, so one slow endpoint never delays the others.'),
    retry_schedule: z
      .array(duration)
      .min(1)
      .default(['5s', '5m', '30m', '2h', '5h', '10h', '10h'])
      .describe('Delays before each retry of a failed webhook; after the last one the delivery is failed.'),
    disable_after: duration
      .default('5d')
      .describe('An endpoint whose deliveries have failed without a success for this long is disabled.'),
    rotation_overlap: duration
      .default('24h')
      .describe('After a secret rotation, how long the previous secret keeps signing alongside the new one.'),
  })
  .describe('Outgoing webhooks.');

const retention = z
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

const status = z
  .strictObject({
    title: z.string().default('Posthorn').describe('Name shown on the public status page and feed.'),
  })
  .describe('The public status area.');

const log = z
  .strictObject({
    level: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info')
      .describe('Least severe level written to the log.'),
    access_log: z.boolean().default(true).describe('Log one line per HTTP request.'),
  })
  .describe('Structured JSON logs on standard output.');

export const configSchema = z.strictObject({
  server: server.default(server.parse({})),
  storage: storage.default(storage.parse({})),
  security: security.default(security.parse({})),
  smtp_in: smtpIn.default(smtpIn.parse({})),
  delivery: delivery.default(delivery.parse({})),
  dkim: dkim.default(dkim.parse({})),
  dns: dns.default(dns.parse({})),
  domains: domains.default(domains.parse({})),
  clamav: clamav.default(clamav.parse({})),
  tracking: tracking.default(tracking.parse({})),
  sandbox: sandbox.default(sandbox.parse({})),
  limits: limits.default(limits.parse({})),
  webhooks: webhooks.default(webhooks.parse({})),
  retention: retention.default(retention.parse({})),
  status: status.default(status.parse({})),
  log: log.default(log.parse({})),
});

export type Config = z.infer<typeof configSchema>;
export type LaneConfig = z.infer<typeof laneSchema>;

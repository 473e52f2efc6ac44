/**
 * Config sections of received mail: the inbound SMTP listener and ClamAV scanning of attachments.
 */
import { z } from 'zod';
import { duration, hostPort, MAX_TIMER_MS, secret } from './fields.js';
import { bareAddress, hostName, hostOrAddress, trustedDomain } from './names.js';

export const smtpInSection = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Run the inbound SMTP listener.'),
    listen: hostPort.default('127.0.0.1:2525').describe('Address and port of the inbound SMTP listener.'),
    hostname: hostName
      .default('localhost')
      .describe(
        'Host name announced in the SMTP greeting and Received headers, and the MX host the bounce records point to.',
      ),
    max_message_bytes: z
      .int()
      .positive()
      .default(26_214_400)
      .describe('Largest message accepted (advertised with SIZE).'),
    max_recipients: z.int().positive().default(100).describe('Recipients accepted per message.'),
    max_connections_per_ip: z
      .int()
      .positive()
      .default(10)
      .describe('Concurrent connections per client IPv4 address, or per IPv6 /64 network.'),
    max_clients: z
      .int()
      .positive()
      .default(100)
      .describe('Concurrent connections in all; more are answered 421 and closed.'),
    tls_cert_file: z
      .string()
      .default('')
      .describe(
        'PEM certificate (chain) for STARTTLS, set together with tls_key_file; both empty use a self-signed one.',
      ),
    tls_key_file: z
      .string()
      .default('')
      .meta(secret)
      .describe('PEM private key of tls_cert_file, set together with it.'),
    complaint_address: bareAddress
      .default('fbl@localhost')
      .describe(
        'Address that receives feedback-loop (ARF) complaint reports (compared with recipients case-insensitively); empty for none.',
      ),
    feedback_loop_domains: z
      .array(trustedDomain)
      .default([])
      .describe(
        'Domains of trusted feedback loops: a complaint or DSN whose DKIM signature of one of them (or a subdomain) passes may name any recipient of a message. Other reports act only on a recipient they prove.',
      ),
    idle_timeout: duration({ min: '1ms', timer: true })
      .default('2m')
      .describe(
        'Close a connection that sends nothing for this long (RFC 5321 §4.5.3.2 allows 5m; slow clients are cut off).',
      ),
    max_session: duration({ min: '1ms', timer: true })
      .default('10m')
      .describe(
        'Longest time one connection may stay open, whatever it does; then 421 and close (a message being committed is answered first, waiting up to 5s).',
      ),
    max_commands: z
      .int()
      .positive()
      .default(200)
      .describe(
        'Commands a client may send before DATA (per transaction); more gets 421 and the connection is closed.',
      ),
    max_processing_bytes: z
      .int()
      .positive()
      .default(134_217_728)
      .describe(
        'Bytes of received messages parsed, authenticated and stored at once (memory use is a small multiple of it); more wait in the spool. One message is always processed, whatever its size.',
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
  .superRefine((section, ctx) => {
    // With only one of the two set, the listener used to fall back to a self-signed certificate.
    if ((section.tls_cert_file === '') === (section.tls_key_file === '')) return;
    const [missing, other] =
      section.tls_cert_file === '' ? ['tls_cert_file', 'tls_key_file'] : ['tls_key_file', 'tls_cert_file'];
    ctx.addIssue({
      code: 'custom',
      path: [missing],
      message: `must be set when smtp_in.${other} is (both, or neither for a self-signed certificate)`,
    });
  })
  .describe('The inbound SMTP listener.');

export const clamavSection = z
  .strictObject({
    host: hostOrAddress.default('127.0.0.1').describe('clamd TCP host.'),
    port: z.int().min(1).max(65535).default(3310).describe('clamd TCP port.'),
    socket: z.string().default('').describe('clamd Unix socket; used instead of host/port when set.'),
    timeout_ms: z.int().positive().max(MAX_TIMER_MS).default(30_000).describe('Timeout of one scan.'),
    max_attempts: z
      .int()
      .positive()
      .default(3)
      .describe(
        'Scans of one attachment that may fail while clamd is up (e.g. over its StreamMaxLength) before it is marked error.',
      ),
    rescan_interval: duration({ min: '1ms', timer: true })
      .default('15s')
      .describe('How often attachments still pending (clamd was down) are scanned again.'),
  })
  .describe('ClamAV scanning of inbound attachments.');

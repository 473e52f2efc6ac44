/**
 * Bounce classification: turns what a receiving server said (an SMTP reply during delivery, or the
 * Status and Diagnostic-Code fields of a DSN that arrived later) into one closed outcome, a cause,
 * and whether the address itself is bad. The rules live in `bounce-rules.ts` as tables; this module
 * only decides the order in which they are consulted:
 *
 * 1. The reply code's class gives the outcome: 2xx delivered, 4xx deferred, 5xx bounced
 *    (RFC 5321 §4.2.1). A DSN's Status class does the same (RFC 3464 §2.3.4).
 * 2. An enhanced status code, when present, gives the cause (RFC 3463); for codes marked as
 *    generic or as stretched by providers, a matching text pattern refines it.
 * 3. Otherwise the reply text's phrases, then the bare reply code, then `other`.
 * 4. Hard means "suppress the address as hard_bounce": a permanent failure whose cause is the
 *    address (see `hardWhenPermanent`).
 *
 * It never looks anything up and never changes state: the same input always gives the same class.
 */
import {
  type BounceCategory,
  enhancedRules,
  hardWhenPermanent,
  replyCodeRules,
  subjectRules,
  textRules,
} from './bounce-rules.js';
import { type EnhancedStatus, parseEnhancedStatus, parseSmtpReply, type SmtpReply } from './smtp-reply.js';

export type { BounceCategory } from './bounce-rules.js';

export type DeliveryOutcome = 'delivered' | 'deferred' | 'bounced';

/** What one reply or failure means for one recipient. */
export interface BounceClass {
  readonly outcome: DeliveryOutcome;
  /** The cause; null when delivered. */
  readonly category: BounceCategory | null;
  /** True when the address should go on the suppression list as `hard_bounce`. */
  readonly hard: boolean;
  /** An RFC 3463 status for events and DSNs: the server's own, else one that fits the outcome. */
  readonly status: string;
}

/**
 * Classifies a parsed SMTP reply.
 *
 * @example classifyReply(smtpReply(550, '5.1.1 User unknown'))
 * // { outcome: 'bounced', category: 'mailbox_unknown', hard: true, status: '5.1.1' }
 */
export function classifyReply(reply: SmtpReply): BounceClass {
  const codeClass = Math.floor(reply.code / 100);
  if (codeClass === 2 || codeClass === 4 || codeClass === 5) {
    const enhanced = parseEnhancedStatus(reply.enhanced ?? '');
    const cls = classify(codeClass, reply.code, enhanced, reply.text);
    // RFC 5321 §4.5.3.1.10: 552 for "too many recipients" is RFC 821's mistake for 452, and
    // clients SHOULD treat it as temporary: the recipients left over go in a later transaction.
    // A 5xx with X.5.3 says the same ("too many recipients", RFC 3463 §3.6: the remainder goes in
    // a later delivery); it is about the transaction, never the address, so it defers too.
    // Only for a live reply: a DSN carrying one reports a delivery the remote MTA gave up.
    if (
      codeClass === 5 &&
      (tooManyRecipients(enhanced) || (reply.code === 552 && cls.category === 'rate_limited'))
    )
      return classify(4, reply.code, enhanced, reply.text);
    return cls;
  }
  // RFC 5321 §4.2: a first digit other than 2 to 5 is out of range, and clients SHOULD treat it
  // as a fatal error. It says nothing about the address, so it is never hard.
  if (codeClass !== 3) return outOfRange;
  // A 3xx where a final reply belongs is a server speaking out of turn.
  return classifyTransportFailure('protocol');
}

/** RFC 3463 §3.6 X.5.3: more recipients than the server takes in one transaction. */
function tooManyRecipients(enhanced: EnhancedStatus | null): boolean {
  return enhanced !== null && enhanced.subject === 5 && enhanced.detail === 3;
}

const outOfRange: BounceClass = { outcome: 'bounced', category: 'other', hard: false, status: '5.5.0' };

/**
 * Classifies a reply as received (one line or several, e.g. nodemailer's `err.response`). Text
 * that is not an SMTP reply at all is a protocol failure: deferred, like a dropped connection.
 */
export function classifySmtpResponse(raw: string): BounceClass {
  const reply = parseSmtpReply(raw);
  return reply === null ? classifyTransportFailure('protocol') : classifyReply(reply);
}

/**
 * Classifies a DSN recipient from its Status field ("5.1.1", RFC 3464 §2.3.4) and its
 * Diagnostic-Code field ("smtp; 550 5.1.1 <a@b.example>: User unknown", §2.3.6), either of which
 * may be empty. The Status decides the outcome; the diagnostic adds text and a reply code.
 *
 * @example classifyDsn('5.2.2', 'smtp; 552 5.2.2 Mailbox full')
 * // { outcome: 'bounced', category: 'mailbox_full', hard: false, status: '5.2.2' }
 */
export function classifyDsn(status: string, diagnostic = ''): BounceClass {
  // The diagnostic-type ("smtp", "X-Postfix") precedes the first ";". Folded lines are joined.
  const body = diagnostic
    .replace(/\s*\r?\n\s*/g, ' ')
    .replace(/^\s*[\w.-]+\s*;\s*/, '')
    .trim();
  const reply = parseSmtpReply(body);
  const fromStatus = parseEnhancedStatus(status);
  const fromReply = parseEnhancedStatus(reply?.enhanced ?? '');
  // A generic Status ("5.0.0") yields to the diagnostic's own code, keeping the Status's class.
  const enhanced =
    fromStatus !== null && fromReply !== null && isGeneric(fromStatus)
      ? { ...fromReply, class: fromStatus.class }
      : (fromStatus ?? fromReply);
  const text = reply?.text ?? body;
  const fromCode = reply === null ? null : Math.floor(reply.code / 100);
  const codeClass = enhanced?.class ?? (fromCode === 2 || fromCode === 4 ? fromCode : 5);
  return classify(codeClass, reply?.code ?? null, enhanced, text);
}

/** Failures that happen before or instead of an SMTP reply. */
export type TransportFailure =
  | 'connect_failed'
  | 'timeout'
  | 'connection_lost'
  | 'tls_failed'
  | 'tls_unavailable'
  | 'dns_temporary'
  | 'domain_not_found'
  | 'null_mx'
  | 'no_mx_address'
  | 'protocol'
  | 'unknown';

const transportRules: Readonly<Record<TransportFailure, BounceClass>> = {
  connect_failed: deferred('network', '4.4.1'), // no answer from host
  timeout: deferred('network', '4.4.2'), // bad connection
  connection_lost: deferred('network', '4.4.2'),
  tls_failed: deferred('tls', '4.7.5'), // cryptographic failure
  tls_unavailable: deferred('tls', '4.7.10'), // encryption needed (policy "require", not offered)
  dns_temporary: deferred('dns_failure', '4.4.3'), // directory server failure
  domain_not_found: { outcome: 'bounced', category: 'domain_unknown', hard: true, status: '5.1.2' },
  null_mx: { outcome: 'bounced', category: 'domain_unknown', hard: true, status: '5.1.10' }, // RFC 7505 §4.2
  // Every MX host of the domain has no address (NXDOMAIN or NODATA): unable to route. The domain
  // exists and says it takes mail, its DNS is broken: not the address's fault, so never hard.
  no_mx_address: { outcome: 'bounced', category: 'dns_failure', hard: false, status: '5.4.4' },
  protocol: deferred('other', '4.5.0'),
  unknown: deferred('other', '4.0.0'),
};

/**
 * Classifies a failure that produced no SMTP reply. All are retried except a domain that cannot
 * receive mail: one that does not exist or publishes a null MX (hard), or whose MX hosts all have
 * no address (not hard).
 */
export function classifyTransportFailure(kind: TransportFailure): BounceClass {
  return transportRules[kind];
}

const errorCodes: ReadonlyMap<string, TransportFailure> = new Map<string, TransportFailure>([
  ['ECONNREFUSED', 'connect_failed'],
  ['EHOSTUNREACH', 'connect_failed'],
  ['ENETUNREACH', 'connect_failed'],
  ['EHOSTDOWN', 'connect_failed'],
  ['EADDRNOTAVAIL', 'connect_failed'],
  ['ETIMEDOUT', 'timeout'],
  ['ESOCKETTIMEDOUT', 'timeout'],
  ['ECONNRESET', 'connection_lost'],
  ['ECONNABORTED', 'connection_lost'],
  ['EPIPE', 'connection_lost'],
  ['ECONNECTION', 'connection_lost'], // nodemailer: connection closed unexpectedly
  ['ESOCKET', 'connection_lost'], // nodemailer: socket-level error
  ['ETLS', 'tls_failed'], // nodemailer: TLS handshake or STARTTLS failed
  ['EREQUIRETLS', 'tls_unavailable'],
  ['EDNS', 'dns_temporary'],
  ['ENOTFOUND', 'dns_temporary'],
  ['ESERVFAIL', 'dns_temporary'],
  ['ETIMEOUT', 'dns_temporary'], // node:dns timeout
  ['EAI_AGAIN', 'dns_temporary'],
  ['EPROTOCOL', 'protocol'], // nodemailer: invalid server response
]);

/**
 * Names the transport failure behind a thrown error (Node system errors and nodemailer's codes;
 * nodemailer keeps the system code in `originalCode`, which is more precise and read first).
 */
export function transportFailureOf(err: unknown): TransportFailure {
  if (typeof err !== 'object' || err === null) return 'unknown';
  const fields = err as { code?: unknown; originalCode?: unknown };
  for (const code of [fields.originalCode, fields.code]) {
    if (typeof code !== 'string') continue;
    const known = errorCodes.get(code);
    if (known !== undefined) return known;
    if (/^(ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO_|UNABLE_TO_VERIFY|SELF_SIGNED)/.test(code)) return 'tls_failed';
  }
  return 'unknown';
}

/**
 * The class of a recipient whose retries ran out (RFC 5321 §4.5.4.1): it bounces with 5.4.7
 * (delivery time expired), keeps the cause of its last deferral, and is never hard: the address
 * may be fine and the server only unreachable.
 */
export function expired(last: BounceClass | null): BounceClass {
  return { outcome: 'bounced', category: last?.category ?? 'network', hard: false, status: '5.4.7' };
}

function classify(
  codeClass: 2 | 4 | 5,
  replyCode: number | null,
  enhanced: EnhancedStatus | null,
  text: string,
): BounceClass {
  // X.0.0 says nothing beyond the class; treat it as absent so the reply code can speak.
  const useful = enhanced !== null && !isGeneric(enhanced) ? enhanced : null;
  const status = enhanced === null ? `${codeClass}.0.0` : formatStatus(codeClass, enhanced);
  if (codeClass === 2) return { outcome: 'delivered', category: null, hard: false, status };
  const codeRule = replyCode === null ? undefined : replyCodeRules.get(replyCode);
  const outcome: DeliveryOutcome =
    codeClass === 4 || codeRule?.outcome === 'deferred' ? 'deferred' : 'bounced';
  const category = categoryOf(useful, text) ?? codeRule?.category ?? 'other';
  return { outcome, category, hard: outcome === 'bounced' && hardWhenPermanent[category], status };
}

function categoryOf(enhanced: EnhancedStatus | null, text: string): BounceCategory | null {
  const row = textRules.find((candidate) => candidate.pattern.test(text));
  if (enhanced === null) return row?.category ?? null;
  const rule =
    enhancedRules.get(`${enhanced.subject}.${enhanced.detail}`) ?? subjectRules.get(enhanced.subject);
  if (rule === undefined) return row?.category ?? null;
  return rule.refine && row !== undefined && !row.weak ? row.category : rule.category;
}

function formatStatus(codeClass: 2 | 4 | 5, enhanced: EnhancedStatus): string {
  // The class follows the outcome actually given; a server saying "450 5.1.1" deferred.
  return `${codeClass}.${enhanced.subject}.${enhanced.detail}`;
}

function isGeneric(enhanced: EnhancedStatus): boolean {
  return enhanced.subject === 0 && enhanced.detail === 0;
}

function deferred(category: BounceCategory, status: string): BounceClass {
  return { outcome: 'deferred', category, hard: false, status };
}

/**
 * Bounces that count towards `repeated_soft_bounce`: those about the recipient's mailbox or system.
 * A block of our IP or content, or a TLS or authentication problem, is about us: it never
 * suppresses a good address.
 */
export function countsAsSoftBounce(cls: BounceClass): boolean {
  if (cls.outcome !== 'bounced' || cls.hard) return false;
  const aboutUs = [
    'spam_block',
    'policy',
    'auth_failure',
    'content',
    'message_too_large',
    'tls',
    'rate_limited',
  ];
  return cls.category === null || !aboutUs.includes(cls.category);
}

/**
 * The tables behind bounce classification: what an enhanced status code means, what a bare reply
 * code means, and which phrases in a reply's text name a cause. Data only; `bounce-classifier.ts`
 * applies them. To teach Posthorn a new provider phrase, add a row here and a case to the test.
 *
 * Enhanced status codes are those of RFC 3463 §3 and the IANA registry of RFC 5248 (X.7.10 to
 * X.7.30 come from RFCs 5248, 7293, 7372, 7505, 8689 and the registry). Bare reply codes follow
 * RFC 5321 §4.2.2 and §4.2.3, with 521 and 556 from RFC 7504.
 */

/** Why a recipient was not (yet) delivered. */
export type BounceCategory =
  | 'mailbox_unknown'
  | 'mailbox_full'
  | 'mailbox_disabled'
  | 'domain_unknown'
  | 'message_too_large'
  | 'content'
  | 'policy'
  | 'spam_block'
  | 'rate_limited'
  | 'auth_failure'
  | 'dns_failure'
  | 'network'
  | 'tls'
  | 'other';

/**
 * Whether a permanent failure of this category says the address itself is bad, so that it goes on
 * the suppression list as `hard_bounce`. A permanent failure that is about the message, the sender
 * or the sending IP (a block, a full mailbox, a failed DKIM check) must not suppress a good address;
 * it counts as a soft bounce (towards `repeated_soft_bounce`). An unexplained 5xx (`other`) counts
 * as hard, as DESIGN.md §5 says of 5xx replies.
 */
export const hardWhenPermanent: Readonly<Record<BounceCategory, boolean>> = {
  mailbox_unknown: true,
  mailbox_disabled: true,
  domain_unknown: true,
  other: true,
  mailbox_full: false,
  message_too_large: false,
  content: false,
  policy: false,
  spam_block: false,
  rate_limited: false,
  auth_failure: false,
  dns_failure: false,
  network: false,
  tls: false,
};

/**
 * What an enhanced code's `subject.detail` means. `refine: true` marks codes that are generic or
 * that providers are known to stretch (Outlook's 5.4.1 for unknown recipients, Gmail's 4.2.1 for
 * rate limits, Yahoo's 5.7.9 for missing SPF/DKIM): for those a matching text pattern wins.
 */
export interface EnhancedRule {
  readonly category: BounceCategory;
  readonly refine: boolean;
}

const rule = (category: BounceCategory, refine = false): EnhancedRule => ({ category, refine });

/** Keyed by "subject.detail". */
export const enhancedRules: ReadonlyMap<string, EnhancedRule> = new Map([
  ['0.0', rule('other', true)],
  ['1.0', rule('mailbox_unknown', true)],
  ['1.1', rule('mailbox_unknown')], // bad destination mailbox address
  ['1.2', rule('domain_unknown')], // bad destination system address
  ['1.3', rule('mailbox_unknown')], // bad destination mailbox address syntax
  ['1.4', rule('mailbox_unknown')], // destination mailbox address ambiguous
  ['1.6', rule('mailbox_unknown')], // destination mailbox has moved, no forwarding address
  ['1.7', rule('policy')], // bad sender's mailbox address syntax
  ['1.8', rule('policy')], // bad sender's system address
  ['1.10', rule('domain_unknown')], // recipient address has null MX (RFC 7505 §4.2)
  ['2.0', rule('other', true)],
  ['2.1', rule('mailbox_disabled', true)], // mailbox disabled, not accepting messages
  ['2.2', rule('mailbox_full')], // mailbox full
  ['2.3', rule('message_too_large')], // message length exceeds administrative limit
  ['2.4', rule('other')], // mailing list expansion problem
  ['3.0', rule('other', true)],
  ['3.1', rule('other', true)], // mail system full
  ['3.2', rule('other', true)], // system not accepting network messages
  ['3.3', rule('other')], // system not capable of selected features
  ['3.4', rule('message_too_large')], // message too big for system
  ['3.5', rule('other')], // system incorrectly configured
  ['4.0', rule('network', true)],
  ['4.1', rule('network', true)], // no answer from host
  ['4.2', rule('network', true)], // bad connection
  ['4.3', rule('dns_failure')], // directory server failure
  ['4.4', rule('domain_unknown', true)], // unable to route
  ['4.5', rule('rate_limited')], // mail system congestion
  ['4.6', rule('network')], // routing loop detected
  ['4.7', rule('network')], // delivery time expired
  ['5.0', rule('other', true)],
  ['5.3', rule('rate_limited')], // too many recipients
  ['5.4', rule('other', true)], // invalid command arguments
  ['6.0', rule('content', true)],
  ['7.0', rule('policy', true)],
  ['7.1', rule('policy', true)], // delivery not authorized, message refused
  ['7.2', rule('policy', true)], // mailing list expansion prohibited
  ['7.3', rule('tls')], // security conversion required but not possible
  ['7.4', rule('tls')], // security features not supported
  ['7.5', rule('tls')], // cryptographic failure
  ['7.6', rule('tls')], // cryptographic algorithm not supported
  ['7.7', rule('auth_failure')], // message integrity failure
  ['7.9', rule('policy', true)], // authentication mechanism too weak
  ['7.10', rule('tls')], // encryption needed
  ['7.11', rule('tls')], // encryption required for requested authentication mechanism
  ['7.13', rule('mailbox_disabled')], // user account disabled
  ['7.15', rule('policy')], // priority level is too low
  ['7.16', rule('message_too_large')], // message is too big for the specified priority
  ['7.17', rule('mailbox_unknown')], // mailbox owner has changed (RFC 7293)
  ['7.18', rule('domain_unknown')], // domain owner has changed (RFC 7293)
  ['7.20', rule('auth_failure')], // no passing DKIM signature found (RFC 7372)
  ['7.21', rule('auth_failure')], // no acceptable DKIM signature found
  ['7.22', rule('auth_failure')], // no valid author-matched DKIM signature found
  ['7.23', rule('auth_failure')], // SPF validation failed
  ['7.24', rule('auth_failure')], // SPF validation error
  ['7.25', rule('auth_failure')], // reverse DNS validation failed
  ['7.26', rule('auth_failure')], // multiple authentication checks failed (Gmail: DMARC)
  ['7.27', rule('policy')], // sender address has null MX (RFC 7505 §4.1)
  ['7.28', rule('spam_block')], // mail flood detected
  ['7.29', rule('auth_failure')], // ARC validation failure
  ['7.30', rule('tls')], // REQUIRETLS support required (RFC 8689)
]);

/** The fallback for an unlisted detail: what its subject says (RFC 3463 §3.1 to §3.8). */
export const subjectRules: ReadonlyMap<number, EnhancedRule> = new Map([
  [0, rule('other', true)],
  [1, rule('mailbox_unknown', true)],
  [2, rule('other', true)],
  [3, rule('other', true)],
  [4, rule('network', true)],
  [5, rule('other', true)],
  [6, rule('content', true)],
  [7, rule('policy', true)],
]);

/**
 * Bare reply codes, used when neither an enhanced code nor a text pattern says more. `outcome`
 * overrides the class of the code: 503 (bad sequence) follows an earlier failure in a pipelined
 * transaction, so it is retried rather than bounced (nodemailer treats it the same way).
 */
export interface ReplyCodeRule {
  readonly category: BounceCategory;
  readonly outcome?: 'deferred';
}

export const replyCodeRules: ReadonlyMap<number, ReplyCodeRule> = new Map<number, ReplyCodeRule>([
  [421, { category: 'network' }], // service not available, closing transmission channel
  [450, { category: 'other' }], // mailbox unavailable (busy, greylisted)
  [451, { category: 'other' }], // local error in processing
  [452, { category: 'rate_limited' }], // insufficient system storage; mostly "too many recipients"
  [454, { category: 'tls' }], // TLS not available due to temporary reason (RFC 3207 §4)
  [503, { category: 'other', outcome: 'deferred' }],
  [521, { category: 'domain_unknown' }], // host does not accept mail (RFC 7504 §3)
  [530, { category: 'policy' }], // must issue STARTTLS / authentication required
  [550, { category: 'other' }], // mailbox unavailable, reason not given
  [551, { category: 'mailbox_unknown' }], // user not local
  [552, { category: 'mailbox_full' }], // exceeded storage allocation
  [553, { category: 'mailbox_unknown' }], // mailbox name not allowed
  [554, { category: 'other' }], // transaction failed
  [556, { category: 'domain_unknown' }], // domain does not accept mail (RFC 7504 §3)
]);

/**
 * Phrases from real replies (Gmail, Outlook, Yahoo, iCloud, Postfix, Exim, Exchange), in order:
 * the first row whose pattern matches names the category, so narrower rows come first. A `weak`
 * row ("rejected", "not allowed") names a cause only when nothing else does: it never overrides
 * an enhanced code.
 */
export interface TextRule {
  readonly pattern: RegExp;
  readonly category: BounceCategory;
  readonly weak?: true;
}

export const textRules: readonly TextRule[] = [
  // Outlook's directory-based edge blocking answers unknown recipients like this (5.4.1, 5.7.1).
  { pattern: /recipient address rejected: access denied/i, category: 'mailbox_unknown' },
  { pattern: /gr[ea]ylist/i, category: 'policy' },
  {
    pattern:
      /\b(spf|dkim|dmarc|arc)\b|unauthenticated|not authenticated|sender (is )?not authori[sz]ed|reverse (dns|hostname|lookup)|\brdns\b|\bptr\b/i,
    category: 'auth_failure',
  },
  // A rejected sender is about us, never about the recipient's address.
  { pattern: /sender (address )?(rejected|denied|verify failed)|sender domain/i, category: 'policy' },
  {
    pattern:
      /(host|domain)( name)? not found|no such domain|domain (does not exist|not exist|is not valid|unknown)|unrouteable|unroutable|no (valid )?mx|null mx|nxdomain|(domain|host) does not accept mail/i,
    category: 'domain_unknown',
  },
  {
    pattern:
      /user unknown|unknown (user|recipient|local.?part)|no such (user|recipient|mailbox|person)|\bnot exist|n't exist|(invalid|unknown|bad) (recipient|mailbox|destination mailbox|address)|(mailbox|user|recipient|address) (not found|unknown|unavailable)|not a valid (mailbox|recipient|user)|no mailbox|(doesn't|does not) have an? [\w.-]* ?account|not our customer|undeliverable address/i,
    category: 'mailbox_unknown',
  },
  {
    pattern:
      /mailbox (is )?full|full mailbox|over ?quota|quota (exceeded|full)|exceeded (the )?(storage|quota)|storage (allocation|quota|limit)|mailbox size limit|insufficient (storage|space) (in|for) (the )?(mailbox|user)|out of (storage )?space/i,
    category: 'mailbox_full',
  },
  {
    pattern:
      /receiving mail (at a rate|too quickly)|rate.?limit|too many (connections|messages|recipients|sessions|concurrent|emails|mails)|throttl|too fast|server busy|unexpected volume|temporarily deferred|try again later|exceeded the (rate|maximum|max)/i,
    category: 'rate_limited',
  },
  {
    pattern:
      /(account|mailbox|user) (is |has been )?(disabled|inactive|deactivated|suspended|closed|locked|expired)|inactive (account|user|mailbox)|no longer (active|available|in use|valid)|account (that you tried to reach )?is disabled/i,
    category: 'mailbox_disabled',
  },
  {
    pattern:
      /too (large|big)|size (limit|exceeds)|exceeds? .*size|message length exceeds|message size|maximum (allowed )?(message )?size/i,
    category: 'message_too_large',
  },
  {
    pattern: /virus|malware|infected|attachment.*(not allowed|prohibited|blocked)|phishing/i,
    category: 'content',
  },
  {
    pattern:
      /spam|junk|unsolicited|bulk mail|block ?list|black ?list|deny ?list|blocked|\brbl\b|dnsbl|spamhaus|spamcop|barracuda|reputation|listed (at|on|in)|banned/i,
    category: 'spam_block',
  },
  { pattern: /starttls|\btls\b|\bssl\b|certificate|encryption (required|needed)/i, category: 'tls' },
  { pattern: /\bdns\b|lookup failure|name service error|servfail|resolver/i, category: 'dns_failure' },
  {
    pattern:
      /time(d)? ?out|connection (refused|reset|lost|dropped|closed)|lost connection|no route to host|network/i,
    category: 'network',
  },
  {
    pattern:
      /relay(ing)? (access )?(denied|not permitted|prohibited)|not permitted|not allowed|access denied|administrative prohibition|prohibited|policy|refused|rejected/i,
    category: 'policy',
    weak: true,
  },
];

/**
 * Which recipient a DSN or complaint report may act on. A report is written by whoever sends it,
 * so it may bounce, delay or complain about a recipient only when the evidence proves that
 * recipient (the rule and its trade-off are in docs/decisions/inbound.md):
 *
 * - The report reached (or, for a complaint, names as the reported message's return path) a VERP
 *   address made for a transaction to one recipient: its tag, which only Posthorn can make, names
 *   that recipient.
 * - The message it maps to had one recipient (a Message-ID names the message, and with it that
 *   recipient).
 * - Otherwise (several recipients: a multi-recipient VERP address, or a message found by its
 *   Message-ID) the report must be authenticated for the recipient it names: a DSN must come with
 *   the null reverse-path (RFC 5321 §4.5.5) and either one passes DKIM, or SPF, for a domain of the
 *   recipient's organizational domain (relaxed alignment, as DMARC's, RFC 7489 §3.1), or a DKIM
 *   signature of a configured feedback-loop domain (`smtp_in.feedback_loop_domains`) passes. A
 *   complaint is proven only by the feedback loop's signature: it is ordinary mail, which a
 *   co-recipient at the same mailbox provider can send signed by that provider.
 *
 * It only decides; it never looks anything up (the authentication results come with the message).
 */
import { getDomain } from 'tldts';
import type { AuthResults } from '../analysis/authenticate.js';

export interface ReportEvidence {
  /** MAIL FROM of the transaction that brought the report; '' is the null reverse-path. */
  readonly mailFrom: string;
  /** mailauth's results for the report; null when they could not be had. */
  readonly auth: AuthResults | null;
}

export type ReportKind = 'dsn' | 'arf';

/**
 * True when a report of `kind` may act on `email`, one of `candidates` recipients it could be
 * about (the recipients of the VERP transaction or of the message it was mapped to).
 */
export type RecipientProof = (
  kind: ReportKind,
  email: string,
  candidates: number,
  evidence: ReportEvidence,
) => boolean;

/** The registrable (organizational) domain of a name; the name itself when there is none. */
export function organizationalDomain(name: string): string {
  const host = name.toLowerCase().replace(/\.$/, '');
  return getDomain(host, { allowPrivateDomains: true }) ?? host;
}

const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1);

const within = (name: string, domain: string) => name === domain || name.endsWith(`.${domain}`);

export function createRecipientProof(feedbackLoopDomains: readonly string[]): RecipientProof {
  const loops = feedbackLoopDomains.map((domain) => domain.toLowerCase().replace(/\.$/, ''));
  return (kind, email, candidates, { mailFrom, auth }) => {
    if (candidates === 1) return true;
    if (!auth) return false;
    // DSNs are sent with the null reverse-path; a "DSN" with a sender is someone's mail.
    if (kind === 'dsn' && mailFrom !== '') return false;
    const signers = auth.dkim.flatMap((row) =>
      row.result === 'pass' && row.domain ? [row.domain.toLowerCase()] : [],
    );
    if (signers.some((signer) => loops.some((loop) => within(signer, loop)))) return true;
    // A complaint is ordinary mail (no null reverse-path), so a co-recipient at a mailbox provider
    // can send one from their own account there, signed by the provider's domain: alignment with
    // the recipient's domain proves nothing for it. Only a feedback loop's signature does.
    if (kind === 'arf') return false;
    const organization = organizationalDomain(domainOf(email));
    const aligned = (domain: string | null | undefined) =>
      domain ? organizationalDomain(domain) === organization : false;
    if (signers.some(aligned)) return true;
    return auth.spf?.result === 'pass' && aligned(auth.spf.domain);
  };
}

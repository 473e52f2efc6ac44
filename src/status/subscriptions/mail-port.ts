/**
 * The port through which the status area sends its mail (verification links and incident
 * notices): Posthorn's own send pipeline, so the mail is queued, DKIM-signed, delivered, retried
 * and recorded like any other. The composition root supplies it; the status area never builds
 * MIME or talks SMTP itself.
 */
export interface StatusMail {
  /** What it is, kept as the message's `kind` tag. */
  readonly kind: 'status_verification' | 'status_notice';
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** RFC 8058 `List-Unsubscribe` and `List-Unsubscribe-Post` on notices. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface StatusMailer {
  /** Queues the mail (`services.systemMail`); resolves with its message ID. Throws when it cannot be accepted. */
  send(mail: StatusMail): Promise<{ readonly id: string }>;
}

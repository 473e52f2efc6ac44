/**
 * What the listener fixes about a transaction when DATA starts: its envelope (ID, time, MAIL FROM,
 * the recipients RCPT TO accepted, the connection's facts) and the `Received:` field Posthorn puts
 * in front of the message. The message itself is spooled after them as it arrives.
 */
import type { SMTPServerSession } from 'smtp-server';
import { newId } from '../../platform/ids.js';
import type { InboundRecipient } from './recipients.js';
import type { SpoolEnvelope } from './spool.js';

/** `accepted` maps each address RCPT TO took to what it resolved to. */
export function envelopeOf(
  session: SMTPServerSession,
  accepted: ReadonlyMap<string, InboundRecipient>,
): SpoolEnvelope {
  const receivedAt = Date.now();
  const recipients: InboundRecipient[] = [];
  for (const rcpt of session.envelope.rcptTo) {
    const recipient = accepted.get(rcpt.address);
    if (recipient) recipients.push(recipient);
  }
  return {
    id: newId('rcv', receivedAt),
    receivedAt,
    mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
    recipients,
    remoteIp: session.remoteAddress,
    helo: session.hostNameAppearsAs || '',
    clientHostname: session.clientHostname,
    tls: session.secure,
  };
}

/** The trace field every receiving SMTP server adds (RFC 5321 §4.4). */
export function receivedHeader(envelope: SpoolEnvelope, hostname: string): string {
  const helo = envelope.helo.replace(/[^\x21-\x7e]/g, '') || 'unknown';
  const protocol = envelope.tls ? 'ESMTPS' : 'ESMTP';
  const date = new Date(envelope.receivedAt).toUTCString().replace('GMT', '+0000');
  return `Received: from ${helo} ([${envelope.remoteIp}])\r\n\tby ${hostname} (Posthorn) with ${protocol} id ${envelope.id};\r\n\t${date}\r\n`;
}

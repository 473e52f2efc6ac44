/** Writes a small message for `recipient` straight into the spool, as the listener would have. */
import type { InboundRecipient } from '../../src/inbound/listener/recipients.js';
import type { Spool } from '../../src/inbound/listener/spool.js';
import { newId } from '../../src/platform/ids.js';

export async function spoolMessage(
  spool: Spool,
  recipient: InboundRecipient,
  subject: string,
): Promise<string> {
  const id = newId('rcv');
  const envelope = {
    id,
    receivedAt: Date.now(),
    mailFrom: 'ann@sender.example',
    recipients: [recipient],
    remoteIp: '127.0.0.1',
    helo: 'client.example',
    clientHostname: 'client.example',
    tls: false,
  };
  const raw = `From: ann@sender.example\r\nTo: ${recipient.address}\r\nSubject: ${subject}\r\n\r\nHello.\r\n`;
  await spool.write(envelope, [Buffer.from(raw)]);
  return id;
}

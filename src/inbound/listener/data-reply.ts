/**
 * The reply to the end of DATA, from how spooling the message went (`spool-data.ts`): 250 with
 * the receipt ID once the message is durable, and only then the hand-off to the processor; 552
 * past the size limit; 452 or 451 when it could not be stored (`smtp-error.ts`); nothing to a
 * client gone mid-DATA.
 */
import type { Logger } from '../../platform/log.js';
import { smtpError, spoolFailure } from './smtp-error.js';
import type { SpoolEnvelope, SpooledMessage } from './spool.js';
import type { DataOutcome } from './spool-data.js';

/** A transaction durable in the spool; a small message comes along in memory (`HAND_OFF_BYTES`). */
export interface Accepted {
  readonly id: string;
  /** Bytes of the message with Posthorn's `Received:` field. */
  readonly bytes: number;
  readonly message: SpooledMessage | undefined;
}

export function replyToData(
  envelope: SpoolEnvelope,
  result: DataOutcome,
  callback: (error?: Error | null, message?: string) => void,
  deps: { readonly log: Logger; readonly onSpooled: (accepted: Accepted) => void },
): void {
  switch (result.kind) {
    case 'spooled': {
      callback(null, `Queued as ${envelope.id}`);
      const message = result.raw ? { envelope, raw: result.raw } : undefined;
      deps.onSpooled({ id: envelope.id, bytes: result.bytes, message });
      return;
    }
    case 'oversized':
      callback(smtpError(552, 'Message exceeds the maximum size'));
      return;
    case 'gone':
      deps.log.debug({ receipt: envelope.id }, 'client went away during DATA; nothing spooled');
      return;
    case 'failed':
      deps.log.error({ err: result.error }, 'could not spool an inbound message');
      callback(spoolFailure(result.error));
      return;
  }
}

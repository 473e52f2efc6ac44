/**
 * The poison rule of the processor: what becomes of a message that might crash the server.
 *
 * A file left in the spool that `MAX_UNFINISHED_RUNS` earlier runs of the process started and never
 * finished (the process crashed or was killed while processing it, so it might again), and a
 * transaction whose processing failed `MAX_FAILURES` times, are given up on: never processed fully
 * again automatically. A message answered 250 is still stored, though, in a minimal form built
 * without the work that may be what crashed (no MIME parse of the body, no attachment extraction,
 * no authentication, no scan): the envelope, the header fields of a bounded read of the top-level
 * header block, the whole message as one attachment (`original.eml`) that is never scanned nor
 * downloadable, and `processing_error` saying why. `email.received` fires for it with
 * `processing: "failed"`. Besides, as before: a `failed` receipt with the reason (and the stored
 * IDs), an error in the log, and the file moved to the spool's `failed` directory for the operator.
 * Only an operator has it processed fully, outside the server (`posthorn inbound retry`, `retry.ts`).
 *
 * The minimal store must not become a loop of its own: a left-over that a run already started to
 * give up on and did not finish (more than `MAX_UNFINISHED_RUNS` earlier runs) gets the receipt
 * alone, and so does a message whose minimal store fails.
 */
import type { Logger } from '../platform/log.js';
import { headerFieldsOf } from './analysis/received-fallback.js';
import type { Spool, SpoolEnvelope } from './listener/spool.js';
import type { Prepared } from './processor-effects.js';
import type { ProcessorStop } from './processor-stop.js';

/** Times processing may fail (with backoff between) before the message is given up on. */
export const MAX_FAILURES = 10;
/**
 * Earlier runs that may start a left-over file without finishing it before it is given up on.
 * Three, not two: a storm of kills from outside (the full chaos run: 60 kills, one every 10–15 s
 * on a loaded host) gave up 5 healthy messages of 441 with two, each killed twice while it was
 * processed (the second time alone, right after a restart). A message that does crash the
 * process costs one crash more before it is given up on.
 */
export const MAX_UNFINISHED_RUNS = 3;
/** Bytes of the top-level header block read for the minimal form of a message given up on. */
const MAX_HEAD_BYTES = 64 * 1024;

export interface Poison {
  /**
   * Counts this run against a left-over file (`spool.countRun`); the reason to give it up on when
   * earlier runs reached the limit, else undefined (process it).
   */
  check(id: string): Promise<GiveUp | undefined>;
  /** Ends a transaction that will not be processed: stored minimally, a `failed` receipt, the file in `failed/`. */
  giveUp(entry: { readonly id: string; readonly bytes: number }, reason: GiveUp): Promise<void>;
}

export interface GiveUp {
  readonly reason: string;
  /** Store the message in its minimal form (false: the receipt alone, the minimal store already failed). */
  readonly store: boolean;
}

export function createPoison(deps: {
  readonly spool: Spool;
  readonly log: Logger;
  readonly halt: ProcessorStop;
  readonly commit: (prepared: Prepared) => Promise<number>;
  readonly durable: () => Promise<void>;
}): Poison {
  const { spool, log, halt } = deps;

  /** The minimal form: the spool file read whole (it was written whole), the header read bounded. */
  async function kept(id: string) {
    const { envelope, raw } = await spool.read(id);
    return { envelope, kept: { raw, mail: await headerFieldsOf(raw, MAX_HEAD_BYTES) } };
  }

  return {
    async check(id) {
      const earlier = await halt.countRun(id);
      if (earlier < MAX_UNFINISHED_RUNS) return undefined;
      const reason = `processing was started by ${earlier} earlier runs of the server that stopped before it finished (it may have crashed them)`;
      // One more unfinished run than the limit: a run that gave it up on died storing it minimally.
      return { reason, store: earlier === MAX_UNFINISHED_RUNS };
    },

    async giveUp({ id, bytes }, { reason, store }) {
      let envelope: SpoolEnvelope | undefined;
      let stored = false;
      if (store) {
        try {
          const minimal = await kept(id);
          envelope = minimal.envelope;
          halt.live();
          await deps.commit({ id, failed: reason, envelope, size: bytes, kept: minimal.kept });
          stored = true;
        } catch (error) {
          halt.live();
          log.error(
            { err: error, receipt: id, reason },
            'inbound message given up on could not be stored without processing; recording its receipt alone',
          );
        }
      }
      if (!stored) {
        envelope ??= await spool.readEnvelope(id).catch(() => undefined);
        halt.live();
        await deps.commit({ id, failed: reason, envelope, size: bytes });
      }
      await deps.durable();
      halt.live();
      await halt.change(spool.moveToFailed(id));
      log.error(
        { receipt: id, reason, stored, mail_from: envelope?.mailFrom, remote_ip: envelope?.remoteIp },
        stored
          ? 'inbound message could not be processed: stored without processing (envelope and header fields; see processing_error), recorded as failed and moved to the failed directory beside the spool'
          : 'inbound message could not be processed: recorded as failed and moved to the failed directory beside the spool',
      );
    },
  };
}

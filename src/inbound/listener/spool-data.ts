/**
 * Streams one transaction's DATA into its spool file as it arrives, pausing the stream while a
 * write is pending, so a connection holds a few chunks of its message in memory however large it
 * is. A small message is also kept whole (`HAND_OFF_BYTES`) and handed to the processor, which
 * then need not read the file back; a larger one is read back from the spool.
 *
 * It must never leave a temporary file behind or commit a message that is not whole: the file is
 * committed only after the end of DATA within the size limit; an overflow, a failed write or a
 * client gone mid-DATA discards it.
 */
import type { Readable } from 'node:stream';
import type { SpoolFile } from './spool-file.js';

/**
 * smtp-server's DATA stream: it counts the bytes and flags a message past `size`. It is a
 * PassThrough whose writable side smtp-server ends at the final dot (`writableEnded`).
 */
export type DataStream = Readable & { readonly sizeExceeded?: boolean; readonly writableEnded?: boolean };

export type DataOutcome =
  | {
      readonly kind: 'spooled';
      /** Bytes after the envelope line: the head and the message. */
      readonly bytes: number;
      /** The head and the message, when small enough to hand over in memory. */
      readonly raw: Buffer | undefined;
    }
  | { readonly kind: 'oversized' }
  | { readonly kind: 'gone' }
  | { readonly kind: 'failed'; readonly error: unknown };

/** Messages up to this size (with the head) are kept in memory for the processor. */
export const HAND_OFF_BYTES = 128 * 1024;

/** What one transaction in progress holds in memory, for `listener.receiving()`. */
export interface DataMeter {
  held(): number;
}

/** Reads `stream` into `file` and settles once the file is committed or discarded. */
export function spoolData(
  stream: DataStream,
  file: SpoolFile,
  head: Buffer,
): { readonly outcome: Promise<DataOutcome>; readonly meter: DataMeter } {
  let kept: Buffer[] | undefined = [head];
  let keptBytes = head.length;
  let failure: { error: unknown } | undefined;
  let writing: Promise<void> = Promise.resolve();
  let ended = false;
  const meter: DataMeter = { held: () => keptBytes + file.held() };

  const discardAs = async (outcome: DataOutcome): Promise<DataOutcome> => {
    await writing;
    await file.discard();
    return outcome;
  };
  const commit = async (): Promise<DataOutcome> => {
    await writing;
    if (stream.sizeExceeded) return discardAs({ kind: 'oversized' });
    if (failure) return discardAs({ kind: 'failed', error: failure.error });
    try {
      const bytes = await file.commit();
      return { kind: 'spooled', bytes, raw: kept ? Buffer.concat(kept, keptBytes) : undefined };
    } catch (error) {
      return discardAs({ kind: 'failed', error });
    }
  };

  const outcome = new Promise<DataOutcome>((resolve) => {
    const settle = (result: Promise<DataOutcome>) =>
      result.then(resolve, (error: unknown) => resolve({ kind: 'failed', error }));
    // A client gone before this was called left the stream destroyed without an 'end'.
    if (stream.destroyed && !stream.readableEnded) {
      settle(discardAs({ kind: 'gone' }));
      return;
    }
    stream.on('data', (chunk: Buffer) => {
      // Past the limit (or a failed write) the bytes are only counted, then dropped: smtp-server
      // answers 552 after the end of DATA (rejectOversized).
      if (stream.sizeExceeded || failure) {
        kept = undefined;
        keptBytes = 0;
        return;
      }
      if (kept && keptBytes + chunk.length <= HAND_OFF_BYTES) {
        kept.push(chunk);
        keptBytes += chunk.length;
      } else {
        kept = undefined;
        keptBytes = 0;
      }
      stream.pause();
      writing = file.append(chunk).then(
        () => {
          stream.resume();
        },
        (error: unknown) => {
          failure = { error };
          stream.resume();
        },
      );
    });
    stream.on('end', () => {
      ended = true;
      settle(commit());
    });
    // smtp-server destroys the stream (with an error, since there is a listener) when the client
    // goes away mid-DATA; 'close' follows 'end' too, and then there is nothing left to do.
    stream.on('error', () => undefined);
    stream.on('close', () => {
      if (!ended) settle(discardAs({ kind: 'gone' }));
    });
  });
  return { outcome, meter };
}

/**
 * One spool file being written while its message arrives: the envelope line and the head (the
 * `Received:` field) first, then the message's bytes as the client sends them, under a temporary
 * name. `commit` makes it durable under its final name; `discard` removes it. Either way nothing
 * but a whole, acknowledged transaction ever carries the final name (see `spool.ts`).
 *
 * It never holds more than `FLUSH_BYTES` (plus the chunk that crossed it) of a message in memory:
 * small appends are gathered into one write, and the caller waits for `append` before handing over
 * more (backpressure), so a 25 MB message costs a connection a few chunks, not 25 MB.
 */
import { constants } from 'node:fs';
import { type FileHandle, open, rename, unlink } from 'node:fs/promises';

export interface SpoolFile {
  /** Appends message bytes; wait for it before appending more. */
  append(chunk: Buffer): Promise<void>;
  /**
   * Writes what is gathered, fsyncs, renames into place and fsyncs the directory; resolves with
   * the bytes after the envelope line (the head and the message) once they survive a power cut.
   */
  commit(): Promise<number>;
  /** Closes and removes the temporary file; safe at any time, also after a failed append. */
  discard(): Promise<void>;
  /** Bytes of the message held in memory now: gathered or being written. */
  held(): number;
}

/** Gathered bytes are written once they pass this (a socket read is up to 64 KB). */
const FLUSH_BYTES = 64 * 1024;

export async function createSpoolFile(
  temp: string,
  final: string,
  first: readonly Buffer[],
  syncDir: () => Promise<void>,
): Promise<SpoolFile> {
  const file: FileHandle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  let gathered: Buffer[] = [...first];
  let gatheredBytes = first.reduce((sum, part) => sum + part.length, 0);
  // The envelope line is not counted: `commit` answers with the head and message only.
  let bytes = gatheredBytes - (first[0]?.length ?? 0);
  let writingBytes = 0;
  let closed = false;
  let done = false;

  const flush = async () => {
    if (gathered.length === 0) return;
    const parts = gathered;
    const expected = gatheredBytes;
    writingBytes = gatheredBytes;
    gathered = [];
    gatheredBytes = 0;
    try {
      // A disk that runs out of room takes what fits and says so only at the next write (ENOSPC,
      // EDQUOT); the listener answers that reason (452), so the rest is written until it comes.
      let rest = parts;
      for (let written = 0; written < expected; ) {
        const { bytesWritten } = await file.writev(rest);
        if (bytesWritten <= 0)
          throw new Error(`no progress writing ${temp}: ${written} of ${expected} bytes`);
        written += bytesWritten;
        rest = after(rest, bytesWritten);
      }
    } finally {
      writingBytes = 0;
    }
  };
  const close = async () => {
    if (closed) return;
    closed = true;
    await file.close();
  };

  return {
    held: () => gatheredBytes + writingBytes,
    async append(chunk) {
      if (done) throw new Error('spool file already committed or discarded');
      gathered.push(chunk);
      gatheredBytes += chunk.length;
      bytes += chunk.length;
      if (gatheredBytes >= FLUSH_BYTES) await flush();
    },
    async commit() {
      if (done) throw new Error('spool file already committed or discarded');
      done = true;
      try {
        await flush();
        await file.sync();
      } finally {
        await close();
      }
      await rename(temp, final);
      try {
        await syncDir();
      } catch (error) {
        // The name is not durable, so the message is not acknowledged (451) and the client sends
        // it again; left here, it would also be processed at the next start.
        await unlink(final).catch(() => undefined);
        throw error;
      }
      return bytes;
    },
    async discard() {
      done = true;
      gathered = [];
      await close().catch(() => undefined);
      try {
        await unlink(temp);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    },
  };
}

/** What is left of `parts` once their first `bytes` bytes are written. */
function after(parts: readonly Buffer[], bytes: number): Buffer[] {
  const rest: Buffer[] = [];
  let skip = bytes;
  for (const part of parts) {
    if (skip >= part.length) skip -= part.length;
    else {
      rest.push(skip > 0 ? part.subarray(skip) : part);
      skip = 0;
    }
  }
  return rest;
}

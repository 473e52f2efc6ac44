/**
 * The inbound spool: every accepted SMTP transaction is written here, and made durable, before the
 * listener answers 250 (RFC 5321 §6.1: once a server accepts responsibility for a message it must
 * not lose it). One file per transaction, `<rcv_id>.eml`: a line of JSON (the envelope and what
 * RCPT TO decided for each recipient), then the message exactly as received.
 *
 * A file is written under a temporary name (`<id>.eml.tmp`, as the message arrives: `create` and
 * `spool-file.ts`), fsynced, renamed into place and the directory fsynced, so after a crash a spool
 * file is either whole or absent; a leftover temporary file belongs to a transaction that was never
 * acknowledged and is removed by `pending`, which therefore runs only before the listener starts. Directory syncs of concurrent writers are
 * shared (group commit), so many sessions cost one directory fsync, not one each.
 *
 * It never parses mail and never touches the database: the processor reads files back, commits
 * their effects, and only then removes them.
 *
 * Two things guard against a message that cannot be processed (a "poison" message): a run
 * counter beside a file that processing picked up after a restart (`<id>.runs`, so a message that
 * brings the process down is not retried at every start forever), and a `failed` directory beside
 * the spool where such a message is moved, kept for the operator, once it is given up on.
 */
import { constants } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { shareSync } from '../../platform/shared-sync.js';
import type { InboundRecipient } from './recipients.js';
import { createSpoolFile, type SpoolFile } from './spool-file.js';

export type { SpoolFile } from './spool-file.js';

/** The SMTP envelope and connection facts of one accepted transaction. */
export interface SpoolEnvelope {
  readonly id: string;
  readonly receivedAt: number;
  /** MAIL FROM, '' for the null reverse-path of bounces (RFC 5321 §4.5.5). */
  readonly mailFrom: string;
  readonly recipients: readonly InboundRecipient[];
  readonly remoteIp: string;
  /** The EHLO/HELO argument. */
  readonly helo: string;
  readonly clientHostname: string;
  readonly tls: boolean;
}

export interface SpooledMessage {
  readonly envelope: SpoolEnvelope;
  readonly raw: Buffer;
}

export interface Spool {
  readonly dir: string;
  /** Writes one transaction durably; resolves only once it survives a power cut. */
  write(envelope: SpoolEnvelope, raw: readonly Buffer[]): Promise<void>;
  /**
   * Starts the file of a transaction whose message is still arriving: the envelope line and
   * `head` are written first, the message is appended as it comes (`spool-file.ts`).
   */
  create(envelope: SpoolEnvelope, head: Buffer): Promise<SpoolFile>;
  read(id: string): Promise<SpooledMessage>;
  /** The envelope alone (the first line), without reading the message. */
  readEnvelope(id: string): Promise<SpoolEnvelope>;
  remove(id: string): Promise<void>;
  /**
   * IDs and sizes of complete spool files, oldest first; removes temporary leftovers of a crash,
   * so it must not run while the listener writes (at start only).
   */
  pending(): Promise<Array<{ id: string; bytes: number }>>;
  /**
   * Counts one more run of the process that started processing this file; returns how many
   * earlier runs had started it without finishing (they stopped or crashed meanwhile).
   */
  countRun(id: string): Promise<number>;
  /** How many earlier runs started this file without finishing it (`countRun`'s count), 0 if none. */
  runsOf(id: string): Promise<number>;
  /**
   * Takes back this run's `countRun` of a file a clean stop left unfinished (that run did not
   * crash on it): the count goes back to `earlier`, the file beside it away when that was 0.
   */
  uncountRun(id: string, earlier: number): Promise<void>;
  /** Moves a file given up on to the `failed` directory beside the spool. */
  moveToFailed(id: string): Promise<void>;
}

const SUFFIX = '.eml';
const TEMP_SUFFIX = '.tmp';
const RUNS_SUFFIX = '.runs';
/** Bytes read to find the envelope line (an envelope with 100 recipients is a few KB). */
const ENVELOPE_MAX = 256 * 1024;

/**
 * `fsyncDir` makes the entries of a directory durable; tests pass one that also records the calls.
 *
 * @example
 * const spool = await openSpool('/var/lib/posthorn/inbound/spool');
 */
export async function openSpool(
  dir: string,
  fsyncDir: (path: string) => Promise<void> = fsyncDirectory,
): Promise<Spool> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const failedDir = join(dirname(dir), 'failed');
  const syncDir = shareSync(() => fsyncDir(dir));
  const syncFailedDir = shareSync(() => fsyncDir(failedDir));
  const syncParentDir = shareSync(() => fsyncDir(dirname(dir)));
  const unlinkIfThere = async (path: string) => {
    try {
      await unlink(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  };

  const runsOf = async (id: string): Promise<number> => {
    try {
      return Number.parseInt(await readFile(join(dir, `${id}${RUNS_SUFFIX}`), 'utf8'), 10) || 0;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      return 0;
    }
  };

  const create = (envelope: SpoolEnvelope, head: Buffer): Promise<SpoolFile> => {
    const final = join(dir, `${envelope.id}${SUFFIX}`);
    const first = [Buffer.from(`${JSON.stringify(envelope)}\n`), head];
    return createSpoolFile(`${final}${TEMP_SUFFIX}`, final, first, syncDir);
  };

  return {
    dir,
    create,
    async write(envelope, raw) {
      const [head = Buffer.alloc(0), ...rest] = raw;
      const file = await create(envelope, head);
      try {
        for (const part of rest) await file.append(part);
        await file.commit();
      } catch (error) {
        await file.discard();
        throw error;
      }
    },
    async read(id) {
      const bytes = await readFile(join(dir, `${id}${SUFFIX}`));
      const newline = bytes.indexOf(0x0a);
      if (newline < 0) throw new Error(`spool file ${id} has no envelope line`);
      const envelope = JSON.parse(bytes.subarray(0, newline).toString('utf8')) as SpoolEnvelope;
      return { envelope, raw: bytes.subarray(newline + 1) };
    },
    async readEnvelope(id) {
      const file = await open(join(dir, `${id}${SUFFIX}`), constants.O_RDONLY);
      try {
        const { buffer, bytesRead } = await file.read(Buffer.alloc(ENVELOPE_MAX), 0, ENVELOPE_MAX, 0);
        const newline = buffer.subarray(0, bytesRead).indexOf(0x0a);
        if (newline < 0) throw new Error(`spool file ${id} has no envelope line`);
        return JSON.parse(buffer.subarray(0, newline).toString('utf8')) as SpoolEnvelope;
      } finally {
        await file.close();
      }
    },
    async remove(id) {
      await Promise.all([
        unlinkIfThere(join(dir, `${id}${SUFFIX}`)),
        unlinkIfThere(join(dir, `${id}${RUNS_SUFFIX}`)),
      ]);
    },
    async pending() {
      const names = new Set(await readdir(dir));
      const found: Array<{ id: string; bytes: number }> = [];
      for (const name of names) {
        if (name.endsWith(TEMP_SUFFIX)) await rm(join(dir, name), { force: true });
        else if (name.endsWith(RUNS_SUFFIX)) {
          const id = name.slice(0, -RUNS_SUFFIX.length);
          if (!names.has(`${id}${SUFFIX}`)) await rm(join(dir, name), { force: true });
        } else if (name.endsWith(SUFFIX)) {
          const { size } = await stat(join(dir, name));
          found.push({ id: name.slice(0, -SUFFIX.length), bytes: size });
        }
      }
      // IDs are ULIDs: lexical order is arrival order.
      return found.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
    runsOf,
    async countRun(id) {
      const path = join(dir, `${id}${RUNS_SUFFIX}`);
      const earlier = await runsOf(id);
      // No fsync: the count has to survive a crash of the process, which the page cache does.
      await writeFile(path, String(earlier + 1), { mode: 0o600 });
      return earlier;
    },
    async uncountRun(id, earlier) {
      const path = join(dir, `${id}${RUNS_SUFFIX}`);
      if (earlier > 0) await writeFile(path, String(earlier), { mode: 0o600 });
      else await unlinkIfThere(path);
    },
    async moveToFailed(id) {
      // A `failed/` made now is itself an entry of the directory above, which must be durable too.
      if ((await mkdir(failedDir, { recursive: true, mode: 0o700 })) !== undefined) await syncParentDir();
      await rename(join(dir, `${id}${SUFFIX}`), join(failedDir, `${id}${SUFFIX}`));
      // The new name first, then the old one's removal: a crash between the two may leave the
      // file in both directories (the next start moves it again), never in neither.
      await syncFailedDir();
      await unlinkIfThere(join(dir, `${id}${RUNS_SUFFIX}`));
      await syncDir();
    },
  };
}

/** fsync of a directory, which makes the names in it (a rename into or out of it) durable. */
async function fsyncDirectory(path: string): Promise<void> {
  const handle = await open(path, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

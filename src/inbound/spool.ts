/**
 * The inbound spool: every accepted SMTP transaction is written here, and made durable, before the
 * listener answers 250 (RFC 5321 §6.1: once a server accepts responsibility for a message it must
 * not lose it). One file per transaction, `<rcv_id>.eml`: a line of JSON (the envelope and what
 * RCPT TO decided for each recipient), then the message exactly as received.
 *
 * A file is written under a temporary name, fsynced, renamed into place and the directory fsynced,
 * so after a crash a spool file is either whole or absent; a leftover temporary file belongs to a
 * transaction that was never acknowledged and is removed. Directory syncs of concurrent writers are
 * shared (group commit), so many sessions cost one directory fsync, not one each.
 *
 * It never parses mail and never touches the database: the processor reads files back, commits
 * their effects, and only then removes them.
 */
import { constants } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { shareSync } from '../platform/shared-sync.js';
import type { InboundRecipient } from './recipients.js';

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
  read(id: string): Promise<SpooledMessage>;
  remove(id: string): Promise<void>;
  /** IDs of complete spool files, oldest first; removes temporary leftovers of a crash. */
  pending(): Promise<string[]>;
}

const SUFFIX = '.eml';
const TEMP_SUFFIX = '.tmp';

export async function openSpool(dir: string): Promise<Spool> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const syncDir = groupSync(dir);

  return {
    dir,
    async write(envelope, raw) {
      const final = join(dir, `${envelope.id}${SUFFIX}`);
      const temp = `${final}${TEMP_SUFFIX}`;
      const file = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
      try {
        await file.writev([Buffer.from(`${JSON.stringify(envelope)}\n`), ...raw]);
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temp, final);
      await syncDir();
    },
    async read(id) {
      const bytes = await readFile(join(dir, `${id}${SUFFIX}`));
      const newline = bytes.indexOf(0x0a);
      if (newline < 0) throw new Error(`spool file ${id} has no envelope line`);
      const envelope = JSON.parse(bytes.subarray(0, newline).toString('utf8')) as SpoolEnvelope;
      return { envelope, raw: bytes.subarray(newline + 1) };
    },
    async remove(id) {
      try {
        await unlink(join(dir, `${id}${SUFFIX}`));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    },
    async pending() {
      const names = await readdir(dir);
      const ids: string[] = [];
      for (const name of names) {
        if (name.endsWith(TEMP_SUFFIX)) await rm(join(dir, name), { force: true });
        else if (name.endsWith(SUFFIX)) ids.push(name.slice(0, -SUFFIX.length));
      }
      // IDs are ULIDs: lexical order is arrival order.
      return ids.sort();
    },
  };
}

/** fsync of the spool directory, shared by concurrent writers (`shareSync`). */
function groupSync(dir: string): () => Promise<void> {
  return shareSync(async () => {
    const handle = await open(dir, constants.O_RDONLY);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  });
}

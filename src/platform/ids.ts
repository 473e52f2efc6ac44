/**
 * Prefixed, time-sortable identifiers (`msg_01J...`): a ULID after the prefix, monotonic within
 * one millisecond so IDs created in one process sort in creation order.
 */
import { getRandomValues, randomBytes, randomFillSync } from 'node:crypto';
import { decodeTime, encodeTime, monotonicFactory } from 'ulid';

/**
 * ulid draws 16 random characters per new millisecond, each through its PRNG; its default PRNG
 * makes one `crypto.getRandomValues` call per character (~50 µs per ID in the inbound listener's
 * profile). This one hands out fractions from a pool filled from the same CSPRNG 1,024 at a time.
 */
function pooledRandom(): () => number {
  const pool = new Uint32Array(1024);
  let used = pool.length;
  return () => {
    if (used === pool.length) {
      getRandomValues(pool);
      used = 0;
    }
    return (pool[used++] as number) / 0x1_0000_0000;
  };
}

const next = monotonicFactory(pooledRandom());

const hexPool = Buffer.alloc(4096);
let hexUsed = hexPool.length;

/**
 * `bytes` random bytes from the CSPRNG as hex, drawn from a pool filled 4 KB at a time (a MIME
 * boundary per composed message; one kernel call each cost more than the rest of the boundary).
 *
 * @example randomHex(8) // '9f86d081884c7d65'
 */
export function randomHex(bytes: number): string {
  if (bytes > hexPool.length) return randomBytes(bytes).toString('hex');
  if (hexUsed + bytes > hexPool.length) {
    randomFillSync(hexPool);
    hexUsed = 0;
  }
  hexUsed += bytes;
  return hexPool.toString('hex', hexUsed - bytes, hexUsed);
}

export type IdPrefix =
  | 'msg'
  | 'tpl'
  | 'tpv'
  | 'dom'
  | 'wh'
  | 'whd'
  | 'whm'
  | 'evt'
  | 'sup'
  | 'rte'
  | 'inb'
  | 'att'
  | 'thr'
  | 'aud'
  | 'con'
  | 'bc'
  | 'org'
  | 'usr'
  | 'prj'
  | 'key'
  | 'ses'
  | 'apr'
  | 'phc'
  | 'grt'
  | 'mem'
  | 'aud_log'
  | 'rep'
  | 'dip'
  | 'inc'
  | 'sub'
  | 'incu'
  | 'ntf'
  | 'job'
  | 'rcp'
  | 'req'
  | 'rcv';

/** @example newId('msg') // 'msg_01JD3Q8Z9V6W1R2T3Y4U5I6O7P' */
export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  return `${prefix}_${next(now)}`;
}

/**
 * IDs that must sort in the order they were made, across restarts and clock steps: the event
 * log's, whose readers (webhook fan-out, analytics) keep a cursor and read strictly `id > cursor`.
 * They are always built from the current time, never from a caller's time, and `seed` at boot
 * with the newest ID already stored makes every later one sort above it, even when the clock now
 * reads earlier than the time that ID carries (a clock stepped back, a host moved). Only valid while
 * one process appends to a store, which holds: only `posthorn serve` appends events.
 *
 * @example
 * const ids = orderedIds('evt');
 * ids.seed(newestStoredId); // at boot
 * ids.next(); // 'evt_01JD...', above newestStoredId
 */
export function orderedIds(prefix: IdPrefix) {
  const nextUlid = monotonicFactory(pooledRandom());
  return {
    next(): string {
      return `${prefix}_${nextUlid(Date.now())}`;
    },
    /** Every later ID sorts above `newest` (one millisecond on: a fresh random part could sort below it). */
    seed(newest: string | undefined): void {
      const time = newest === undefined ? undefined : idTime(newest);
      if (time !== undefined) nextUlid(time + 1);
    },
  };
}

/** The smallest ID of `prefix` created at `time`: every ID made earlier sorts below it (retention). */
export function idFloor(prefix: IdPrefix, time: number): string {
  return `${prefix}_${encodeTime(Math.max(0, Math.floor(time)), 10)}0000000000000000`;
}

/** The creation time encoded in an ID from `newId`, or undefined when it is not one. */
export function idTime(id: string): number | undefined {
  const ulid = id.slice(id.lastIndexOf('_') + 1);
  if (ulid.length !== 26) return undefined;
  try {
    return decodeTime(ulid);
  } catch {
    return undefined;
  }
}

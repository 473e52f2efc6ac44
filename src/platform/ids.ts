/**
 * Prefixed, time-sortable identifiers (`msg_01J...`): a ULID after the prefix, monotonic within
 * one millisecond so IDs created in one process sort in creation order.
 */
import { decodeTime, encodeTime, monotonicFactory } from 'ulid';

const next = monotonicFactory();

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
  | 'mem'
  | 'aud_log'
  | 'rep'
  | 'inc'
  | 'sub'
  | 'job'
  | 'rcp'
  | 'req'
  | 'rcv';

/** @example newId('msg') // 'msg_01JD3Q8Z9V6W1R2T3Y4U5I6O7P' */
export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  return `${prefix}_${next(now)}`;
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

/**
 * Prefixed, time-sortable identifiers (`msg_01J...`): a ULID after the prefix, monotonic within
 * one millisecond so IDs created in one process sort in creation order.
 */
import { monotonicFactory } from 'ulid';

const next = monotonicFactory();

export type IdPrefix =
  | 'msg'
  | 'tpl'
  | 'tpv'
  | 'dom'
  | 'wh'
  | 'whd'
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
  | 'req';

/** @example newId('msg') // 'msg_01JD3Q8Z9V6W1R2T3Y4U5I6O7P' */
export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  return `${prefix}_${next(now)}`;
}

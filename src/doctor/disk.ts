/**
 * Free space where the store lives. SQLite needs room for its WAL and for a copy of a table while
 * a migration rebuilds it; received mail waits in the spool there too. Below 512 MiB or 5 % free
 * a busy day can fill it (fail); below 2 GiB or 10 % it is time to act (warn).
 */
import { existsSync, statfsSync } from 'node:fs';
import path from 'node:path';
import { type Finding, fail, ok, warn } from './finding.js';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

export interface Space {
  readonly free: number;
  readonly total: number;
}

export function diskVerdict(space: Space): 'ok' | 'warn' | 'fail' {
  const share = space.total === 0 ? 0 : space.free / space.total;
  if (space.free < 512 * MIB || share < 0.05) return 'fail';
  if (space.free < 2 * GIB || share < 0.1) return 'warn';
  return 'ok';
}

const size = (bytes: number) =>
  bytes >= GIB ? `${(bytes / GIB).toFixed(1)} GiB` : `${Math.round(bytes / MIB)} MiB`;

/** The data directory, or the nearest folder above it that exists (it is made at the first start). */
function existing(dir: string): string {
  let current = path.resolve(dir);
  while (!existsSync(current) && path.dirname(current) !== current) current = path.dirname(current);
  return current;
}

export function diskFindings(dataDir: string): Finding[] {
  const where = existing(dataDir);
  const stats = statfsSync(where);
  const space = { free: stats.bavail * stats.bsize, total: stats.blocks * stats.bsize };
  const percent = space.total === 0 ? 0 : Math.round((space.free / space.total) * 100);
  const message = `${size(space.free)} free of ${size(space.total)} (${percent} %) where the data lives (${where}).`;
  const fix =
    'free space or grow the file system; retention.messages_days and retention.events_days bound what is kept';
  switch (diskVerdict(space)) {
    case 'fail':
      return [fail('disk', message, fix, where)];
    case 'warn':
      return [warn('disk', message, fix, where)];
    default:
      return [ok('disk', message, where)];
  }
}

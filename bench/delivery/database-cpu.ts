/**
 * CPU of the PostgreSQL server processes serving one database (its backends, found in
 * pg_stat_activity), from /proc: what the database costs per message delivered, beside the
 * node's own CPU. The cluster's shared processes (WAL writer, checkpointer) are not counted.
 */
import pg from 'pg';
import { processCpuMs } from './proc.js';

export interface DatabaseCpu {
  /** CPU milliseconds the database's backends have used since `start()`. */
  sample(): Promise<number>;
  close(): Promise<void>;
}

/** Samples the backends of the database at `url`; the first sample is the baseline. */
export async function databaseCpu(url: string): Promise<DatabaseCpu> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const pids = async (): Promise<number[]> => {
    const { rows } = await client.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    return rows.map((row) => row.pid);
  };
  const cpuOf = (pid: number): number | undefined => {
    try {
      return processCpuMs(pid);
    } catch {
      return undefined; // the backend ended
    }
  };
  const baseline = new Map<number, number>();
  for (const pid of await pids()) {
    const ms = cpuOf(pid);
    if (ms !== undefined) baseline.set(pid, ms);
  }
  return {
    async sample() {
      let used = 0;
      for (const pid of await pids()) used += (cpuOf(pid) ?? 0) - (baseline.get(pid) ?? 0);
      return used;
    },
    close: () => client.end(),
  };
}

/**
 * The CPU time this process spends while `work` runs (user + system, every thread), in ms. A bound
 * on it measures what a request costs, which sharing the cores with other processes on a loaded
 * host does not inflate as it inflates wall-clock time. The other tests of a file run in the same
 * process: a test that bounds CPU time is `test.serial` (AVA runs serial tests alone, first).
 */
export async function cpuTimed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const before = process.cpuUsage();
  const result = await work();
  const used = process.cpuUsage(before);
  return { result, ms: (used.user + used.system) / 1000 };
}

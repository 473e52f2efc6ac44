/**
 * The checkpoint thread (`checkpointer.ts`): its own connection to the database file, running
 * `wal_checkpoint(PASSIVE)` every interval, and again at once while the pass left frames behind
 * (writers appended meanwhile), until a pass catches up. Told 'stop', it closes and exits.
 */
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import type { CheckpointWorkerData, CheckpointWorkerMessage } from './checkpointer.js';

const { file, intervalMs } = workerData as CheckpointWorkerData;
const db = new SQLite(file, { fileMustExist: true, timeout: 0 });
// The copy is synced before the WAL may be reused, as the main connection's own checkpoints are.
db.pragma('synchronous = FULL');
/** Passes in a row without catching up, before waiting for the next tick anyway. */
const MAX_PASSES = 8;

function checkpoint(): void {
  try {
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const [result] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
      if (!result || result.log < 0 || result.checkpointed >= result.log) return;
    }
  } catch (error) {
    const message: CheckpointWorkerMessage = { error: (error as Error).message };
    parentPort?.postMessage(message);
  }
}

const timer = setInterval(checkpoint, intervalMs);
parentPort?.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort?.close();
});

/**
 * The bytes of refused bodies, let go as soon as there are a few MB of them. An oversized body is
 * read and dropped (body.ts), and every 64 KB the socket hands over is a buffer of its own whose
 * memory V8 frees only at a garbage collection. Those buffers weigh almost nothing on the JS heap,
 * so nothing prompts one: V8 waits until about 64 MB of such memory is outside its heap, and a
 * stream of refused 10 MB bodies raised the server's peak RSS by 30+ MB at random. A young-
 * generation collection (about a millisecond) after every DROP_MB dropped keeps that bounded,
 * whatever the GC's timing. Only hostile or mistaken clients send such bodies.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const DROP_MB = 8;

type Collect = (options: { type: 'minor' }) => void;

/** V8's `gc`, exposed for this module alone (not a global of the process). */
function youngCollector(): Collect | undefined {
  const exposed = (globalThis as { gc?: Collect }).gc;
  if (exposed) return exposed;
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as Collect;
  } catch {
    return undefined;
  }
}

const collect = youngCollector();
let dropped = 0;

/** Counts `bytes` of a refused body as garbage; collects the young generation past DROP_MB. */
export function droppedBytes(bytes: number): void {
  dropped += bytes;
  if (dropped < DROP_MB * 1024 * 1024) return;
  dropped = 0;
  collect?.({ type: 'minor' });
}

/**
 * Slots of shared memory that rendered messages are written into by the render workers and sent
 * from by the event loop, then reused. A message handed over as its own transferred ArrayBuffer
 * counts as a fresh external allocation in the receiving isolate: at a few hundred 100 KB
 * messages a second that kept V8 starting a full marking of the event loop's heap every quarter
 * second (BENCHMARKS.md, "Delivery engine"). A slot is one SharedArrayBuffer region, created once.
 *
 * The event loop owns the free list: it takes a slot before a render and gives it back once the
 * SMTP transaction that sent the bytes is over. When every slot is taken, or a message does not
 * fit in one, the worker hands the message over in a buffer of its own, as before.
 */

export interface SlabLayout {
  readonly buffer: SharedArrayBuffer;
  readonly slotSize: number;
}

/** The region of slot `index` (render worker and event loop alike). */
export function slotView(layout: SlabLayout, index: number): Buffer {
  return Buffer.from(layout.buffer, index * layout.slotSize, layout.slotSize);
}

export class MessageSlab implements SlabLayout {
  readonly buffer: SharedArrayBuffer;
  readonly slotSize: number;
  /** Free slots, last freed on top: the slots in use stay few and warm (resident memory). */
  readonly #free: number[];

  /** @example const slab = new MessageSlab(128, 256 * 1024); const slot = slab.take(); */
  constructor(slots: number, slotSize: number) {
    this.slotSize = slotSize;
    this.buffer = new SharedArrayBuffer(slots * slotSize);
    this.#free = Array.from({ length: slots }, (_, i) => slots - 1 - i);
  }

  /** A free slot, or null when all are in use. */
  take(): number | null {
    return this.#free.pop() ?? null;
  }

  release(index: number): void {
    this.#free.push(index);
  }

  get available(): number {
    return this.#free.length;
  }
}

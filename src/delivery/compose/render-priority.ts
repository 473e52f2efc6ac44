/**
 * Transactional renders before marketing ones. The worker pool takes tasks in arrival order, so a
 * broadcast's renders, arriving by the dozen as its lanes fill, would put a password reset's
 * render behind all of them. Here at most `slots` marketing renders are in the pool at once; the
 * others wait in arrival order, and a transactional render goes to the pool at once: it waits
 * behind those few only (DESIGN.md §5, "a broadcast never delays a password reset").
 */
import type { Traffic } from '../../platform/db/tables.js';
import type { RenderedMessage, Renderer } from './renderer.js';
import type { RenderTask } from './render-task.js';

/** A renderer whose `render` takes the job's traffic class. */
export interface PrioritizedRenderer extends Renderer {
  render(task: RenderTask, traffic?: Traffic): Promise<RenderedMessage>;
}

/**
 * @example const renderer = marketingGate(createRenderer(0, file), 2 * threads);
 * await renderer.render(task, 'marketing');
 */
export function marketingGate(renderer: Renderer, slots: number): PrioritizedRenderer {
  let active = 0;
  const waiting: (() => void)[] = [];
  return {
    get threads() {
      return renderer.threads;
    },
    close: () => renderer.close(),
    async render(task, traffic) {
      if (traffic !== 'marketing') return renderer.render(task);
      // A slot freed is handed to the next waiting render directly, so `active` stays exact.
      if (active < slots) active++;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await renderer.render(task);
      } finally {
        const next = waiting.shift();
        if (next) next();
        else active--;
      }
    },
  };
}

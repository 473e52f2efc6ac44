/**
 * What the template items of one batch may render in all. A batch sent with its bodies written
 * out fits in one request of at most `limits.max_body_bytes`; a batch of template items is small
 * on the wire but each item renders its own body (each at most that size, templates/render.ts),
 * so 100 of them could hold a hundred times the limit in memory and write it to the store. The
 * rendered bodies of one batch together get the limit a direct batch's request has.
 */
import { badRequest } from '../platform/http/errors.js';

export interface BatchBudget {
  /** Counts one rendered item; a 400 naming `template` when the batch would pass the limit. */
  charge(content: { readonly html: string | null; readonly text: string | null }): void;
}

export function createBatchBudget(maxBytes: number): BatchBudget {
  let used = 0;
  return {
    charge(content) {
      const bytes = Buffer.byteLength(content.html ?? '') + Buffer.byteLength(content.text ?? '');
      if (used + bytes > maxBytes) {
        const message = `renders ${bytes} bytes of body, which would bring this batch's template items past ${maxBytes} bytes in all (limits.max_body_bytes, what a batch written out can carry); send it in another batch`;
        throw badRequest(`template: ${message}.`, [{ path: 'template', message }]);
      }
      used += bytes;
    },
  };
}

/**
 * A message composed and DKIM-signed before it is queued: a broadcast scheduled ahead prepares its
 * messages this way (broadcasts/preparation.ts), so that at its send time delivery only relays
 * stored bytes, as it does for a transactional send rendered at admission (prerender.ts). The
 * message is given whole (its row as it will be written, its bodies): nothing is read from the
 * store. It renders at marketing priority (render-priority.ts), behind any transactional render.
 */
import { composeFields } from './compose-fields.js';
import type { PrioritizedRenderer } from './render-priority.js';
import { signingIdentity, UNSIGNED } from './signing-identity.js';
import type { SigningKeysPort } from './signing-keys.js';
import { type TrackingPort, trackingInput } from './tracking-step.js';
import type { RawMessage } from './worker-queries.js';
import type { MessageRow } from '../queue/store-rows.js';

export interface AheadMessage {
  /** The message's row as the send path will write it; its `send_at` dates it. */
  readonly row: MessageRow;
  /** The To header's addresses as displayed. */
  readonly to: readonly string[];
  readonly html: string | null;
  readonly text: string | null;
}

export interface RenderAheadDeps {
  readonly renderer: PrioritizedRenderer;
  readonly keys: SigningKeysPort;
  readonly tracking?: TrackingPort;
}

/** The message as DATA will send it, or undefined when its sending domain is gone. */
export async function renderAhead(
  deps: RenderAheadDeps,
  message: AheadMessage,
): Promise<RawMessage | undefined> {
  const { row } = message;
  const signing = await deps.keys.signingFor(row);
  if (signing.kind === 'domain_deleted') return undefined;
  const fields = composeFields(row, { to: message.to, cc: [] });
  const rendered = await deps.renderer.render(
    {
      messageId: null,
      bodies: { html: message.html, text: message.text },
      fields,
      tracking: await trackingInput(deps.tracking, row, fields.headers),
      dkim: signing.kind === 'sign' ? signing.dkim : null,
      // t= is when it was signed (never in the future, which verifiers may refuse); Date is send_at.
      signTime: Date.now(),
    },
    'marketing',
  );
  try {
    return {
      signing: signing.kind === 'sign' ? signingIdentity(signing.dkim) : UNSIGNED,
      size: rendered.size,
      // A copy: the rendering may live in the shared slab, which `release` gives back.
      bytes: Buffer.from(rendered.bytes),
    };
  } finally {
    rendered.release();
  }
}

/** Config section of audiences and broadcasts: imports and how a broadcast is expanded. */
import { z } from 'zod';
import { duration } from './fields.js';

export const broadcastsSection = z
  .strictObject({
    import_max_bytes: z
      .int()
      .positive()
      .default(268_435_456)
      .describe('Largest contact import upload (CSV or JSON lines), in bytes; read as a stream.'),
    expansion_batch: z
      .int()
      .min(1)
      .max(1000)
      .default(25)
      .describe(
        'Contacts a broadcast queues per transaction (one turn of the event loop); smaller batches hold the store and the event loop for less time beside transactional sends.',
      ),
    queue_ahead: z
      .int()
      .min(1)
      .default(2000)
      .describe(
        'Marketing messages queued and due before a broadcast waits for delivery to catch up, so a broadcast never fills the queue (and can still be cancelled).',
      ),
    prepare_ahead: z
      .int()
      .min(0)
      .max(86_400)
      .default(3600)
      .describe(
        'Seconds before its send time a scheduled broadcast starts being prepared: each message composed and DKIM-signed ahead and stored (about its size per contact), so that at the send time it goes out as fast as delivery relays stored mail. 0 turns preparation off (messages are composed as they are sent).',
      ),
    views_lag_max: duration({ timer: true })
      .default('60s')
      .describe(
        'While marketing mail is being delivered, how far behind the store the message history index and the analytics projection may fall in the background, leaving the event loop to delivery; they catch up once the marketing lanes are quiet, and a history page or an analytics report catches up before it answers. "0s": they follow as closely as ever. On PostgreSQL they always follow.',
      ),
  })
  .describe('Audiences and broadcasts: contact imports, the preparation ahead and the marketing expansion.');

/**
 * `posthorn inbound retry <inb_id>`: processes fully a received message that was stored without
 * processing (a suspected poison message, `processing: "failed"`), in this command's process
 * (`retry.ts`). The running server's scanner then scans its attachments.
 */
import { type Command, type Group, UsageError } from '../cli/command.js';
import { withAdmin } from '../cli/context.js';
import { createAnalyzer } from './analysis/analyzer.js';
import { retryProcessing } from './retry.js';

const retryCommand: Command = {
  kind: 'command',
  name: 'retry',
  summary:
    'Process fully a received message stored without processing (processing "failed"), in this command, not the server.',
  args: 'EMAIL_ID',
  options: { json: { type: 'boolean' } },
  help: { json: 'Print JSON.' },
  async run(values, positionals, io) {
    const id = positionals[0];
    if (!id) throw new UsageError('The received message ID (inb_...) is required.');
    const retried = await withAdmin(values, async ({ kernel, services }) => {
      // On this thread: a message that crashes its processing ends this command only.
      const analyzer = createAnalyzer({
        dns: kernel.config.dns,
        smtp_in: { ...kernel.config.smtp_in, workers: 0 },
      });
      try {
        return await retryProcessing(
          { db: kernel.db, store: services.inbound.store, events: services.events, analyzer },
          id,
        );
      } finally {
        await analyzer.close();
      }
    });
    io.out(
      values.json
        ? JSON.stringify(
            { id: retried.id, processing: 'complete', attachments: retried.attachments },
            null,
            2,
          )
        : `Processed ${retried.id} ("${retried.subject}"): ${retried.attachments} attachment(s) to scan.`,
    );
    return 0;
  },
};

export const inboundGroup: Group = {
  kind: 'group',
  name: 'inbound',
  summary: 'Received mail.',
  children: [retryCommand],
};

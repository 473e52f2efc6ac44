/** The `posthorn` command tree: every command and group the binary dispatches to. */
import { queueGroup } from '../delivery/cli.js';
import { inboundGroup } from '../inbound/cli.js';
import { VERSION } from '../version.js';
import { adminGroup } from './admin.js';
import type { Group } from './command.js';
import { doctorCommand } from './doctor.js';
import { serveCommand } from './serve.js';
import { configGroup, initCommand, migrateCommand } from './setup-commands.js';
import { storageGroup } from './storage-commands.js';

export const root: Group = {
  kind: 'group',
  name: 'posthorn',
  summary: `Posthorn ${VERSION}: self-hosted transactional email.`,
  children: [
    serveCommand,
    initCommand,
    migrateCommand,
    configGroup,
    doctorCommand,
    adminGroup,
    queueGroup,
    inboundGroup,
    storageGroup,
  ],
};

/** `posthorn init`, `posthorn migrate` and `posthorn config check|print|example`. */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'smol-toml';
import { exampleToml } from '../platform/config/example.js';
import { checkHost } from '../platform/config/host-checks.js';
import { identityIssues } from '../platform/config/public-identity.js';
import { resolveConfigPath } from '../platform/config/load.js';
import type { Config } from '../platform/config/schema.js';
import { configKeys } from '../platform/config/shape.js';
import { databaseFile, openConfiguredStore } from '../platform/db/database.js';
import { ensurePrivateDir } from '../platform/db/file-modes.js';
import { migrateToLatest } from '../platform/db/migrate.js';
import { bootMasterKey } from '../master-key-boot.js';
import { masterKeyPath, openMasterKey } from '../platform/master-key.js';
import { stopTimeWarning } from '../stop-time.js';
import { certFileName, ensureSelfSignedCert } from '../platform/tls/self-signed.js';
import { type Command, type Group, type Io, stringOption } from './command.js';
import { loadExistingConfig, loadFor, loadShownConfig } from './context.js';

export const initCommand: Command = {
  kind: 'command',
  name: 'init',
  summary:
    'Write a config file with every default, create the master key and, when inbound SMTP has no certificate configured, a self-signed one.',
  options: { force: { type: 'boolean' } },
  help: { force: 'Overwrite an existing config file (the master key is never overwritten).' },
  async run(values, _positionals, io) {
    const file = resolveConfigPath(stringOption(values, 'config'), process.env);
    if (existsSync(file) && !values.force) {
      io.out(`${file} already exists; left unchanged (use --force to overwrite).`);
    } else {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, exampleToml());
      io.out(`Wrote ${file}.`);
    }
    const { config } = loadFor(values);
    // 0700 from the start, as the store makes it when it opens: the master key is written there now.
    ensurePrivateDir(config.storage.data_dir);
    const { created, file: keyFile } = await initMasterKey(config, io);
    io.out(
      created
        ? `Wrote the master key to ${keyFile} (mode 0600). Back it up.`
        : `Master key: ${keyFile} (kept).`,
    );
    const { smtp_in: smtp } = config;
    if (smtp.enabled && (smtp.tls_cert_file === '' || smtp.tls_key_file === '')) {
      // STARTTLS needs a certificate; without a configured one, inbound SMTP uses this one.
      const dir = path.join(config.storage.data_dir, 'tls');
      const had = existsSync(path.join(dir, certFileName));
      const { certFile } = await ensureSelfSignedCert(dir, smtp.hostname);
      io.out(
        had
          ? `STARTTLS certificate: ${certFile} (kept).`
          : `Wrote a self-signed STARTTLS certificate for ${smtp.hostname} to ${certFile}; configure smtp_in.tls_cert_file and tls_key_file to use your own.`,
      );
    }
    return 0;
  },
};

/** The master key, checked against the database when one exists (init does not create one). */
async function initMasterKey(config: Config, io: Io): Promise<{ created: boolean; file: string }> {
  if (config.storage.engine === 'sqlite' && !existsSync(databaseFile(config.storage.data_dir))) {
    const file = masterKeyPath(config.storage.data_dir, config.security.master_key_file);
    return { ...openMasterKey(file, []), file };
  }
  const store = openConfiguredStore(config.storage);
  try {
    await migrateToLatest(store.db, {
      onWarning: (name, message) => io.err(`posthorn: warning: migration ${name}: ${message}`),
    });
    return await bootMasterKey(config, store.db);
  } finally {
    await store.close();
  }
}

export const migrateCommand: Command = {
  kind: 'command',
  name: 'migrate',
  summary: 'Apply pending database migrations and exit (needs a config file, like admin).',
  async run(values, _positionals, io) {
    const { config } = loadExistingConfig(values);
    const store = openConfiguredStore(config.storage);
    try {
      const applied = await migrateToLatest(store.db, {
        onStart: (name) => io.out(`Applying ${name} ...`),
        onApplied: (name, ms) => io.out(`Applied ${name} in ${ms} ms.`),
        onWarning: (name, message) => io.err(`posthorn: warning: migration ${name}: ${message}`),
      });
      io.out(applied.length ? `Applied: ${applied.join(', ')}.` : 'The database is up to date.');
    } finally {
      await store.close();
    }
    return 0;
  },
};

/** The resolved config with every secret key replaced. */
export function redactedConfig(config: Config): Record<string, Record<string, unknown>> {
  const copy = structuredClone(config) as unknown as Record<string, Record<string, unknown>>;
  for (const key of configKeys()) {
    const section = copy[key.section];
    if (key.secret && section && section[key.key] !== '') section[key.key] = '[redacted]';
  }
  return copy;
}

const checkCommand: Command = {
  kind: 'command',
  name: 'check',
  summary:
    'Validate the configuration, and the files and addresses it names on this host, without starting; exit 2 with each bad key when invalid.',
  async run(values, _positionals, io) {
    const { config, file, path: resolved } = loadShownConfig(values);
    await checkHost(config, file ?? 'the embedded defaults');
    // Not a failure: the unit runs this as ExecStartPre, and a drop-in may have raised the limit.
    const stopWarning = stopTimeWarning(config);
    if (stopWarning) io.err(`posthorn: warning: ${stopWarning}`);
    // Not failures either: a fresh install starts on localhost; it cannot send to the internet yet.
    for (const issue of identityIssues(config))
      io.err(
        `posthorn: ${issue.level === 'required' ? 'to set before sending' : 'warning'}: ${issue.message}`,
      );
    io.out(`Configuration is valid (${file ?? `embedded defaults; ${resolved} does not exist`}).`);
    return 0;
  },
};

const printCommand: Command = {
  kind: 'command',
  name: 'print',
  summary: 'Print the resolved configuration (file + environment + defaults), secrets redacted.',
  async run(values, _positionals, io) {
    const { config } = loadShownConfig(values);
    io.out(stringify(redactedConfig(config)));
    return 0;
  },
};

const exampleCommand: Command = {
  kind: 'command',
  name: 'example',
  summary: 'Print the documented example configuration generated from the schema.',
  async run(_values, _positionals, io) {
    io.out(exampleToml().trimEnd());
    return 0;
  },
};

export const configGroup: Group = {
  kind: 'group',
  name: 'config',
  summary: 'Inspect and validate the configuration.',
  children: [checkCommand, printCommand, exampleCommand],
};

/**
 * `posthorn serve`: writes config/config.toml on the very first start (when the default path has
 * no file), boots, and stops gracefully on SIGTERM/SIGINT with exit code 0.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exampleToml } from '../platform/config/example.js';
import { checkHost } from '../platform/config/host-checks.js';
import { identityIssues } from '../platform/config/public-identity.js';
import { loadConfig, resolveConfigPath } from '../platform/config/load.js';
import type { Config } from '../platform/config/schema.js';
import { createLogger, type Logger } from '../platform/log.js';
import { startServer } from '../server.js';
import { longestStopMs, stopTimeWarning } from '../stop-time.js';
import { type Command, stringOption } from './command.js';
import { configNamed, missingConfigError } from './context.js';

function ensureConfigFile(file: string, explicit: boolean, io: { err(line: string): void }): void {
  if (existsSync(file)) return;
  if (explicit) throw missingConfigError(file);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, exampleToml(), { flag: 'wx' });
  io.err(`posthorn: first start: wrote the default configuration to ${file}`);
}

/** Says which keys still name this host locally (a fresh install), and why each matters. */
function warnOfIdentity(config: Config, log: Logger): void {
  const issues = identityIssues(config);
  const required = issues.filter((issue) => issue.level === 'required').map((issue) => issue.keys[0]);
  if (required.length > 0)
    log.warn(
      { keys: required },
      `not ready to send to the internet until these keys name public values: ${required.join(', ')}; \`posthorn doctor\` checks the rest`,
    );
  for (const issue of issues)
    log.warn({ keys: issue.keys, required: issue.level === 'required' }, issue.message);
}

export const serveCommand: Command = {
  kind: 'command',
  name: 'serve',
  summary: 'Run the HTTP API, delivery engine, inbound SMTP and scheduler in this process.',
  async run(values, _positionals, io) {
    const file = resolveConfigPath(stringOption(values, 'config'), process.env);
    ensureConfigFile(file, configNamed(values), io);
    const { config } = loadConfig(file, process.env);
    await checkHost(config, file);
    const log = createLogger(config.log.level, process.stdout, config.log.format);
    log.info({ config: file, data_dir: path.resolve(config.storage.data_dir) }, `configuration from ${file}`);
    const stopWarning = stopTimeWarning(config);
    if (stopWarning) log.warn({ stop_ms: longestStopMs(config) }, stopWarning);
    warnOfIdentity(config, log);
    // Listen for signals before booting: a SIGTERM that arrives while engines are still starting
    // must still stop everything cleanly (exit 0), not kill the process half-started.
    const stopRequested = new Promise<void>((resolve) => {
      const onSignal = (signal: NodeJS.Signals) => {
        log.info({ signal }, 'stopping');
        resolve();
      };
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
    });
    const server = await startServer(config, log);
    await stopRequested;
    await server.stop();
    return 0;
  },
};

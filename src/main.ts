/**
 * The `posthorn` command. Exit codes: 0 success, 1 a failed operation, 2 a usage or configuration
 * error (the message names the bad key or option).
 */
import { dispatch, type Io } from './cli/command.js';
import { root } from './cli/root.js';
import { ConfigError } from './platform/config/load.js';
import { AppError } from './platform/http/errors.js';
import { ListenError } from './platform/listen-error.js';
import { MasterKeyError } from './platform/master-key.js';
import { VERSION } from './version.js';

const io: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--version' || argv[0] === '-v') {
    io.out(VERSION);
    return 0;
  }
  try {
    return await dispatch(root, argv, io);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof MasterKeyError) {
      io.err(`posthorn: ${error.message}`);
      return 2;
    }
    // Exit 1, not 2: a port still held by a stopping instance is free again when systemd restarts.
    if ((error instanceof AppError && error.expose) || error instanceof ListenError) {
      io.err(`posthorn: ${error.message}`);
      return 1;
    }
    io.err(`posthorn: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
